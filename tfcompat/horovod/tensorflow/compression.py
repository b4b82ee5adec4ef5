"""Horovod's gradient compression (`horovod/tensorflow/compression.py`): `Compression.none`
sends tensors as they are, `Compression.fp16` casts floating-point tensors to float16 for
the collective and back to their dtype after it."""
from tfcompat.framework import dtypes
from tfcompat.ops import math_ops


class Compressor(object):
    """Compresses a tensor before a collective and restores it after."""

    @staticmethod
    def compress(tensor):
        """(the tensor to send, the context `decompress` needs)."""
        raise NotImplementedError("Compressor.compress")

    @staticmethod
    def decompress(tensor, ctx):
        raise NotImplementedError("Compressor.decompress")


class NoneCompressor(Compressor):
    @staticmethod
    def compress(tensor):
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor


class FP16Compressor(Compressor):
    @staticmethod
    def compress(tensor):
        if tensor.dtype.is_floating:
            return math_ops.cast(tensor, dtypes.float16), tensor.dtype
        return tensor, tensor.dtype

    @staticmethod
    def decompress(tensor, ctx):
        return math_ops.cast(tensor, ctx) if ctx.is_floating else tensor


class Compression(object):
    none = NoneCompressor
    fp16 = FP16Compressor
