"""`tf.math.confusion_matrix` (TF's tensorflow/python/ops/confusion_matrix.py)."""
import torch
from torch._subclasses.fake_tensor import FakeTensor

from tfcompat.framework import dtypes, errors
from tfcompat.framework.ops import op, to_torch


def _squeezed(labels, predictions):
    """TF's remove_squeezable_dimensions: drop a last axis of size 1 from whichever of the
    two has rank one more than the other."""
    if labels.ndim == predictions.ndim + 1 and labels.shape[-1] == 1:
        labels = labels.squeeze(-1)
    elif predictions.ndim == labels.ndim + 1 and predictions.shape[-1] == 1:
        predictions = predictions.squeeze(-1)
    return labels, predictions


@op("math.confusion_matrix", v1=["confusion_matrix"], graph_name="ConfusionMatrix")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32,
                     name=None):
    """Counts (or summed `weights`) of each (label, prediction) pair in a
    [num_classes, num_classes] matrix, rows labels. Without `num_classes` it is one more than
    the largest label or prediction (read with `.item()`: the output shape needs it);
    negative or out-of-range classes raise InvalidArgumentError, as TF's assertions do."""
    dtype = dtypes.as_dtype(dtype)
    labels, predictions = _squeezed(to_torch(labels).long(), to_torch(predictions).long())
    if labels.shape != predictions.shape:
        raise ValueError("labels and predictions must have the same shape, got %s and %s"
                         % (list(labels.shape), list(predictions.shape)))
    concrete = not isinstance(labels, FakeTensor) and not isinstance(predictions, FakeTensor)
    if concrete and labels.numel() and min(labels.min().item(), predictions.min().item()) < 0:
        raise errors.InvalidArgumentError("`labels` and `predictions` must be non-negative")
    if num_classes is None:
        classes = max(labels.max().item(), predictions.max().item()) + 1 \
            if labels.numel() else 0
    else:
        classes = int(to_torch(num_classes).item()) if not isinstance(num_classes, int) \
            else num_classes
        if concrete and labels.numel() and \
                max(labels.max().item(), predictions.max().item()) >= classes:
            raise errors.InvalidArgumentError("`labels` and `predictions` must be less than "
                                              "`num_classes` (%d)" % classes)
    values = torch.ones(labels.shape, dtype=dtype.torch_dtype, device=labels.device) \
        if weights is None else to_torch(weights, dtype).expand(labels.shape)
    matrix = torch.zeros(classes * classes, dtype=dtype.torch_dtype, device=labels.device)
    matrix.index_put_((labels.reshape(-1) * classes + predictions.reshape(-1),),
                      values.reshape(-1), accumulate=True)
    return matrix.reshape(classes, classes)
