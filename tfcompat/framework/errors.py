"""`tf.errors`: TensorFlow's error classes with its hierarchy and error codes.

Every `OpError` subclass takes TF's positional signature `(node_def, op, message)` and can
also be raised with the message alone, which is how tfcompat raises them.
"""
import re

import torch

from tfcompat._api import tf_export

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, \
    PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, \
    UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = range(17)

for _code_name in ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
                   "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
                   "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
                   "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"):
    tf_export("errors." + _code_name)(globals()[_code_name])


@tf_export("errors.OpError", "OpError")
class OpError(Exception):
    """Base class of TF runtime errors; `.message`, `.op`, `.node_def`, `.error_code`."""

    error_code = UNKNOWN

    def __init__(self, node_def=None, op=None, message=None, *args):
        if message is None and op is None and isinstance(node_def, str):
            node_def, message = None, node_def
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self):
        return str(self.message)


def _error_class(name, code):
    cls = type(name, (OpError,), {
        "error_code": code,
        "__doc__": "TensorFlow's `tf.errors.%s` (error code %d)." % (name, code),
        "__module__": __name__,
    })
    tf_export("errors." + name)(cls)
    return cls


CancelledError = _error_class("CancelledError", CANCELLED)
UnknownError = _error_class("UnknownError", UNKNOWN)
InvalidArgumentError = _error_class("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _error_class("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _error_class("NotFoundError", NOT_FOUND)
AlreadyExistsError = _error_class("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _error_class("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _error_class("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _error_class("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _error_class("AbortedError", ABORTED)
OutOfRangeError = _error_class("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _error_class("UnimplementedError", UNIMPLEMENTED)
InternalError = _error_class("InternalError", INTERNAL)
UnavailableError = _error_class("UnavailableError", UNAVAILABLE)
DataLossError = _error_class("DataLossError", DATA_LOSS)
UnauthenticatedError = _error_class("UnauthenticatedError", UNAUTHENTICATED)

_BY_CODE = {cls.error_code: cls for cls in OpError.__subclasses__()}


@tf_export("errors.exception_type_from_error_code")
def exception_type_from_error_code(error_code):
    return _BY_CODE[error_code]


@tf_export("errors.error_code_from_exception_type")
def error_code_from_exception_type(cls):
    return cls.error_code


# ---------------------------------------------------------------- message formatting

_EAGER_OP_SUFFIX = re.compile(r" \[Op:[A-Za-z0-9_]+\]$")


def format_shape(shape):
    """A shape as TF's error messages write it: `[?,3]`, `?` for an unknown rank.

    Takes a TensorShape, torch.Size or sequence; unknown dims (`None`) and the symbolic
    sizes graph building gives them (torch SymInts) are `?`, never torch's symbol names."""
    dims = getattr(shape, "dims", shape) if not isinstance(shape, (list, tuple)) else shape
    if dims is None:
        return "?"
    return "[%s]" % ",".join(_format_dim(d) for d in dims)


def _format_dim(dim):
    if isinstance(dim, torch.SymInt):
        dim = dim.node.maybe_as_int()
    else:
        dim = getattr(dim, "value", dim)
    return "?" if dim is None else str(int(dim))


def kernel_message(message):
    """An op's error message without the eager-only ` [Op:Name]` suffix, as TF's graph
    kernels and shape functions word it."""
    return _EAGER_OP_SUFFIX.sub("", message)


# ---------------------------------------------------------------- naming the op being run

RUNNING_OP = "{op}"


def name_running_op(error, op_type):
    """Put `op_type` where `error`'s message says `RUNNING_OP`.

    Check helpers (`binary_operands`, `_axis`, ...) word their errors for "the op being run"
    without knowing which op that is; the `@op` wrapper (eager) and graph nodes (building
    and running a graph) call this on what an op raises, so the message names its TF op
    type ("cannot compute AddV2 as input #1 ..."). An error already naming its op, or
    raised by an op run inside another op, keeps its message.
    """
    args = error.args
    if args and type(args[0]) is str and RUNNING_OP in args[0]:
        error.args = (args[0].replace(RUNNING_OP, op_type),) + args[1:]
        if isinstance(error, OpError):
            error.message = error.args[0]
