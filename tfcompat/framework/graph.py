"""TF1 graphs on torch.fx: `tf.Graph`, `Operation`, symbolic `Tensor`, and their execution.

A `Graph` owns a `torch.fx.Graph`. Every op call made while a graph is being built becomes one
fx node whose target is the op's own torch function (bound to its non-tensor arguments), so
graph mode runs exactly the code eager mode runs. Static shapes come from running that same
function on fake tensors (`FakeTensorMode`); unknown (`None`) dimensions of placeholders are
symbolic sizes, shown as `None` in `Tensor.shape`.

Graph inputs are fx placeholders of three kinds: fed placeholders (`tf.placeholder`),
variable storages (the variable's leaf tensor, so assignments update it in place), and
captured eager tensors. `Graph.build_module(inputs, outputs)` prunes the graph to what the
outputs need (data and control dependencies), with any tensor replaceable by a feed, and
returns an executable `torch.fx.GraphModule`.
"""
import contextlib
import copy
import functools
import linecache
import logging
import operator
import os
import re
import sys
import threading
import types
import weakref

import numpy as np
import torch
import torch.fx
from tensorboard.compat.proto import attr_value_pb2, graph_pb2, node_def_pb2
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

from tfcompat._api import export_constant, tf_export
from tfcompat._dependencies import long_lived_imports
from tfcompat.framework import context, dtypes, errors, ops
from tfcompat.framework.tensor import EagerTensor, Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.framework.default_session import running_session, session_for
from tfcompat.framework.constant_op import constant
from tfcompat.framework.denormal import flush_denormals
from tfcompat.framework.thread_choice import ThreadChoice

# TF1's graph protos: the protobuf messages TensorFlow itself defines (tensorboard ships them).
NodeDef = export_constant(node_def_pb2.NodeDef, v1=["NodeDef"])
GraphDef = export_constant(graph_pb2.GraphDef, v1=["GraphDef"])
AttrValue = export_constant(attr_value_pb2.AttrValue, v1=["AttrValue"])

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")

# Graph building from several threads: a graph may be shared (TF lets any thread build into
# a graph it makes the default, and Keras' eager tensors all live in one graph), and neither a
# torch.fx graph nor a FakeTensorMode with its ShapeEnv may be changed by two threads at once.
# So recording an op (its fake-tensor pass, node and name) holds this one lock, as does any
# use of a graph's fake-tensor mode; one lock for all graphs, so nesting cannot deadlock.
# Graph building is not on the eager hot path.
_building_lock = threading.RLock()


def _serialized(method):
    """`method` run while holding `_building_lock`."""
    @functools.wraps(method)
    def locked(*args, **kwargs):
        with _building_lock:
            return method(*args, **kwargs)
    return locked


class _QuietShapeInference(logging.Filter):
    """Drops torch's fake-tensor log records ("failed while attempting to run meta for
    aten.add.Tensor" and a traceback, at ERROR level) of the thread running shape inference:
    an op rejecting its input shapes there is a TF error we raise, not torch's to log.
    Installed on that logger only while a graph's fake mode is entered (under
    `_building_lock`, so one thread at a time); other threads' records pass."""

    logger = logging.getLogger("torch._subclasses.fake_tensor")

    def __init__(self):
        super(_QuietShapeInference, self).__init__()
        self.thread = None
        self.depth = 0

    def enter(self):
        if self.depth == 0:
            self.thread = threading.get_ident()
            self.logger.addFilter(self)
        self.depth += 1

    def exit(self):
        self.depth -= 1
        if self.depth == 0:
            self.logger.removeFilter(self)
            self.thread = None

    def filter(self, record):
        return record.thread != self.thread


_quiet_shape_inference = _QuietShapeInference()


class _SerializedFakeTensorMode(FakeTensorMode):
    """A FakeTensorMode entered (and converting tensors) under `_building_lock`: torch keeps
    the active mode per thread, but the mode object, its converter and its ShapeEnv are
    shared by every thread that builds into the graph. While it is entered, torch's
    fake-tensor log is quiet for this thread (`_QuietShapeInference`)."""

    def __enter__(self):
        _building_lock.acquire()
        try:
            entered = super(_SerializedFakeTensorMode, self).__enter__()
        except BaseException:
            _building_lock.release()
            raise
        _quiet_shape_inference.enter()
        return entered

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            _quiet_shape_inference.exit()
            return super(_SerializedFakeTensorMode, self).__exit__(
                exc_type, exc_value, traceback)
        finally:
            _building_lock.release()

    @_serialized
    def from_tensor(self, *args, **kwargs):
        return super(_SerializedFakeTensorMode, self).from_tensor(*args, **kwargs)


class _ThreadBuildingState(threading.local):
    """What TF's Graph keeps per thread: the name scope and the control-dependency stack."""

    def __init__(self):
        self.scope = ""
        self.control_stack = []


class _Slot(object):
    """Marks where the i-th tensor input goes in an op's argument template."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _fill(template, values):
    cls = type(template)
    if cls is _Slot:
        return values[template.index]
    if cls is tuple or cls is list:
        return cls(_fill(t, values) for t in template)
    if cls is dict:
        return {k: _fill(v, values) for k, v in template.items()}
    return template


def _has_slot(template):
    cls = type(template)
    if cls is _Slot:
        return True
    if cls is tuple or cls is list:
        return any(_has_slot(t) for t in template)
    if cls is dict:
        return any(_has_slot(t) for t in template.values())
    return False


_UNLOWERED_DTYPES = (dtypes.string, dtypes.resource, dtypes.variant)


class BoundOp(object):
    """An fx call target: the op's torch function with its non-tensor arguments bound.

    A run fills only the arguments that hold inputs (`_arg_fills`, `_kwarg_fills`) into
    copies of the constant argument lists: graph runs call every op this way. A node the
    op's lowering took (`lower`, `ops.LOWERINGS`) calls its torch function directly.
    """

    def __init__(self, fn, op_type, args_template, kwargs_template):
        self.fn = fn
        self.op_type = op_type
        self.operation = None       # set once the graph made the node's Operation
        self.args_template = args_template
        self.kwargs_template = kwargs_template
        self.__name__ = op_type
        self._arg_fills = [(i, t) for i, t in enumerate(args_template) if _has_slot(t)]
        self._kwarg_fills = [(k, t) for k, t in kwargs_template.items() if _has_slot(t)]
        # The common case (`relu(x)`, `matmul(a, b)`): the positional arguments are the
        # inputs themselves, in order, so a run passes them on without filling a copy.
        self._inputs_are_args = not self._kwarg_fills and all(
            type(t) is _Slot and t.index == i for i, t in enumerate(args_template))
        self._direct = None

    def lower(self, fakes):
        """Take the op's lowering (`ops.LOWERINGS`) for inputs like `fakes` (each of known
        rank) where the call's arguments are the inputs in order, then Python numbers, and
        at most a name besides."""
        lowering = ops.LOWERINGS.get(self.fn)
        template = self.args_template
        count = len(fakes)
        if lowering is None or not count or self._kwarg_fills or \
                any(key != "name" for key in self.kwargs_template) or \
                [t.index if type(t) is _Slot else None for t in template[:count]] != \
                list(range(count)) or \
                not all(type(t) in (int, float) for t in template[count:]):
            return
        self._direct = lowering(*fakes, *template[count:])

    def __call__(self, *inputs):
        if self._direct is not None:
            try:
                return self._direct(*inputs)
            except Exception:       # noqa: BLE001 - the op's own function raises TF's error
                pass
        kwargs = self.kwargs_template
        if self._inputs_are_args:
            args = inputs
        else:
            args = list(self.args_template)
            for i, template in self._arg_fills:
                args[i] = inputs[template.index] if type(template) is _Slot \
                    else _fill(template, inputs)
            if self._kwarg_fills:
                kwargs = dict(kwargs)
                for key, template in self._kwarg_fills:
                    kwargs[key] = inputs[template.index] if type(template) is _Slot \
                        else _fill(template, inputs)
        try:
            return self.fn(*args, **kwargs)
        except Exception as error:      # noqa: BLE001 - named and re-raised
            errors.name_running_op(error, self.op_type)
            if isinstance(error, errors.OpError) and error.op is None:
                error.op = self.operation       # TF's OpError.op: the op that failed
            raise

    def __repr__(self):
        return "<op %s>" % self.op_type


class ConstantOp(BoundOp):
    """A `tf.constant` node: its value is converted on the first run and reused (TF builds a
    constant once; converting a large numpy constant on every Session.run cost a copy).
    Ops never modify their inputs in place, and variables initialized from a constant copy
    it, so the one value is safe to share between runs. As `tf.constant` copies its value
    when called, later changes to the user's array or list do not reach the graph."""

    def __init__(self, fn, op_type, args_template, kwargs_template):
        super(ConstantOp, self).__init__(fn, op_type, copy.deepcopy(args_template),
                                         copy.deepcopy(kwargs_template))
        self._value = None

    def __call__(self):
        if self._value is None:
            value = super(ConstantOp, self).__call__()
            if isinstance(value, FakeTensor):
                return value            # a fake run while building: not kept
            self._value = value
        return self._value


_TFCOMPAT_DIR = os.path.dirname(os.path.dirname(__file__)) + os.sep
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def _creation_site():
    """(file, line, function) of the innermost caller outside tfcompat and torch: the
    user's line that made an op. TF keeps the whole stack; one frame is cheap to find."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_TFCOMPAT_DIR) and not filename.startswith(_TORCH_DIR):
            return filename, frame.f_lineno, frame.f_code.co_name
        frame = frame.f_back
    return None


def _without_torch_frames(tb):
    """Traceback `tb` less the frames of torch's own code (fake-tensor dispatch, an fx
    module's call): a TF error shows the user's line and our op function."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_TORCH_DIR):
            kept.append(tb)
        tb = tb.tb_next
    result = None
    for entry in reversed(kept):
        result = types.TracebackType(result, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return result


_DATATYPE_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}


def _datatype_name(dtype):
    """TF's DataType enum name of a dtype, as node attrs print it (`DT_FLOAT`)."""
    name = dtype.base_dtype.name
    return _DATATYPE_NAMES.get(name) or "DT_" + name.upper()


def located_error(error):
    """`error`, raised while running a graph, as TF 1.x reports it: for an op error naming
    its op (`error.op`), the kernel's message, the node, and where the user's code created
    the op ("Caused by op 'add', defined at: File ..., line N"); the traceback without
    torch's frames."""
    traceback = _without_torch_frames(error.__traceback__.tb_next)
    op = getattr(error, "op", None)
    if op is None:
        return error.with_traceback(traceback)
    message = "%s\n\t [[{{node %s}}]]" % (errors.kernel_message(error.message), op.name)
    if op._defined_at is not None:
        filename, line, function = op._defined_at
        message += "\n\nCaused by op %r, defined at:\n  File \"%s\", line %d, in %s" % (
            op.name, filename, line, function)
        source = linecache.getline(filename, line).strip()
        if source:
            message += "\n    " + source
    return type(error)(error.node_def, op, message).with_traceback(traceback)


@tf_export("Operation")
class Operation(object):
    """A node of a `tf.Graph`: name, type, inputs, outputs, control inputs, and where the
    user's code created it (`_defined_at`, for run-time errors)."""

    def __init__(self, graph, name, op_type, node, inputs, control_inputs=()):
        self.graph = graph
        self._defined_at = _creation_site()
        self.name = name
        self.type = op_type
        self._node = node
        self._inputs = list(inputs)
        self._control_inputs = list(control_inputs)
        self.outputs = []
        self.device = ""
        self.device = context.device_for_op(self)

    @property
    def inputs(self):
        return tuple(self._inputs)

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    def _add_control_input(self, op):
        self._control_inputs.append(op)

    def values(self):
        return tuple(self.outputs)

    def run(self, feed_dict=None, session=None):
        session_for(session, self.graph).run(self, feed_dict)

    @property
    def node_def(self):
        node_def = NodeDef(name=self.name, op=self.type, device=self.device)
        node_def.input.extend(t.name if t.value_index else t.op.name for t in self._inputs)
        node_def.input.extend("^" + op.name for op in self._control_inputs)
        return node_def

    def get_attr(self, name):
        raise ValueError("Operation %r has no attr named %r (tfcompat keeps no attrs)"
                         % (self.name, name))

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self.name, self.type)


class SymbolicTensor(Tensor):
    """A graph tensor: one output of an Operation, with static shape and dtype."""

    __slots__ = ("_op", "_index", "_fake", "_dtype", "_static", "_node", "_keras_mask",
                 "_keras_history", "__weakref__")

    def __init__(self, op, index, fake, dtype=None, static_shape=None, node=None):
        self._op = op
        self._node = node if node is not None else op._node
        self._index = index
        self._fake = fake
        self._dtype = dtype if dtype is not None else dtypes.from_torch(fake.dtype)
        self._static = static_shape if static_shape is not None else _static_shape(fake)

    op = property(lambda self: self._op)
    graph = property(lambda self: self._op.graph)
    value_index = property(lambda self: self._index)
    dtype = property(lambda self: self._dtype)
    device = property(lambda self: self._op.device)

    @property
    def name(self):
        return "%s:%d" % (self._op.name, self._index)

    @property
    def shape(self):
        return self._static

    def get_shape(self):
        return self._static

    @property
    def ndim(self):
        return self._static.rank

    def set_shape(self, shape):
        rank_was_unknown = self._static.rank is None
        self._static = self._static.merge_with(shape)
        if rank_was_unknown and self._static.rank is not None:
            # the stand-in fake of an unknown-rank tensor becomes one of its new shape
            self._fake = self.graph._fake_for_shape(self._static, self._dtype)

    def _node_ref(self):
        return self._node

    def consumers(self):
        return [op for op in self._op.graph._ops if self in op._inputs]

    def eval(self, feed_dict=None, session=None):
        return session_for(session, self.graph).run(self, feed_dict)

    @property
    def numpy(self):
        """TF's graph tensors have no `numpy` (AttributeError, so `hasattr(t, "numpy")` is
        False as scripts test it)."""
        raise AttributeError("'Tensor' object has no attribute 'numpy': %s is a graph tensor; "
                             "evaluate it with Session.run (TF1) or return it from the "
                             "tf.function" % self.name)

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed in Graph "
                        "execution. Use Eager execution or decorate this function with "
                        "@tf.function.")

    def __iter__(self):
        first = self._static[0] if self._static.rank else None
        first = None if first is None else int(first)
        if first is None:
            raise TypeError("Cannot iterate over a tensor with unknown first dimension.")
        return iter([self[i] for i in range(first)])

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors. (%s) Please call "
                        "`x.shape` rather than `len(x)` for shape information." % self.name)

    def __hash__(self):
        return id(self)

    def __index__(self):
        raise TypeError("Symbolic tensor %s cannot be used as a Python index" % self.name)

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError("Cannot convert a symbolic tf.Tensor (%s) to a numpy array."
                                  % self.name)

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._static, self._dtype.name)

    def __str__(self):
        return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self._static, self._dtype.name)


def _static_shape(value):
    if not isinstance(value, torch.Tensor):
        return TensorShape(np.shape(value))
    return TensorShape._from_sizes(int(d) if isinstance(d, int) else None for d in value.shape)


def _flatten_fakes(value):
    """The tensors (torch or numpy string arrays) of an op's fake result, in order."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        return [value]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _flatten_fakes(item)]
    return []


def _agreed_shape(shapes):
    """What static shapes from stand-ins of several ranks agree on: their rank if all
    have it (else unknown), and each dim that all know and share."""
    if len({shape.rank for shape in shapes}) > 1:
        return TensorShape(None)
    dims = zip(*[shape.as_list() for shape in shapes])
    return TensorShape([column[0] if len(set(column)) == 1 else None for column in dims])


def _has_unknown_dims(fake):
    return any(isinstance(size, torch.SymInt) for size in fake.shape)


_MERGING_SHAPE_ENV = []
_HINT_CHECKING_SHAPE_ENV = []


_LIGHT_SHAPE_ENV = []
_VALIDATOR = "torch.fx.experimental.validator"


def _light_shape_env_class():
    """A ShapeEnv class that loads less of torch.compile's machinery. ShapeEnv loads it for
    two things graphs do not use: its constructor imports the translation validator (which
    imports torch._dynamo) only to ask whether that torch.compile debugging option is on,
    which it is not by default; and each new symbol records the source line that made it,
    found by skipping the files of a list that imports torch.export, AOT autograd and
    inductor (~0.3 s in every script that builds a graph). Here the constructor gets a
    stand-in validator module that says "off" while the real one is not loaded, and symbols
    get no source line (they appear only in torch.compile's guard messages). torch._dynamo
    itself still loads: FakeTensorMode imports its config."""
    if not _LIGHT_SHAPE_ENV:
        from torch._guards import SLoc
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        class LightShapeEnv(ShapeEnv):
            def __init__(self):
                stand_in = None
                if _VALIDATOR not in sys.modules:
                    stand_in = sys.modules[_VALIDATOR] = types.ModuleType(_VALIDATOR)
                    stand_in.translation_validation_enabled = lambda: False
                try:
                    super(LightShapeEnv, self).__init__()
                finally:
                    if stand_in is not None and sys.modules.get(_VALIDATOR) is stand_in:
                        del sys.modules[_VALIDATOR]

            def _get_stack_summary(self, is_debug=False, framework_loc=None):
                return SLoc(framework_loc, None), ""
        _LIGHT_SHAPE_ENV.append(LightShapeEnv)
    return _LIGHT_SHAPE_ENV[0]


def _hint_checking_shape_env():
    """The graph's ShapeEnv. It notes when a comparison on unknown dims was decided by their
    stand-in sizes in a way other sizes would decide differently (`x[8:16]` of an unknown
    batch: is it larger than 16?); `Graph.record` then finds which output dims depend on
    the stand-ins and makes them unknown, as TF's shape inference leaves them. Comparisons
    every size of 2 or more decides alike (broadcasting's `s == 1`) are not noted."""
    if not _HINT_CHECKING_SHAPE_ENV:
        import sympy

        class HintCheckingShapeEnv(_light_shape_env_class()):
            def __init__(self):
                super(HintCheckingShapeEnv, self).__init__()
                self.stand_in_decided = False

            def evaluate_expr(self, orig_expr, hint=None, fx_node=None, size_oblivious=False,
                              fallback_value=None, *, forcing_spec=False):
                result = super(HintCheckingShapeEnv, self).evaluate_expr(
                    orig_expr, hint, fx_node, size_oblivious, fallback_value,
                    forcing_spec=forcing_spec)
                if not self.stand_in_decided and isinstance(orig_expr, sympy.Rel) and \
                        orig_expr.free_symbols:
                    self.stand_in_decided = self._decided_by_stand_ins(orig_expr)
                return result

            def _decided_by_stand_ins(self, relation):
                values = set()
                for scale in (1, 1009):
                    value = relation.xreplace({
                        symbol: self.backed_var_to_val[symbol] * scale
                        for symbol in relation.free_symbols if symbol in self.backed_var_to_val})
                    if value not in (sympy.true, sympy.false):
                        return True
                    values.add(bool(value))
                return len(values) > 1
        _HINT_CHECKING_SHAPE_ENV.append(HintCheckingShapeEnv)
    return _HINT_CHECKING_SHAPE_ENV[0]()


def _merging_shape_env():
    """A ShapeEnv whose undecided `a == b` / `a != b` between an unknown dim (a symbol made
    by `_merged_fake_run`) and a value or another unknown dim comes out "equal": the dim takes
    that value as its stand-in size, and the guard then records them equal. Built on first
    use (symbolic shapes are imported lazily, see Graph.__init__)."""
    if not _MERGING_SHAPE_ENV:
        import sympy

        class MergingShapeEnv(_light_shape_env_class()):
            def __init__(self):
                super(MergingShapeEnv, self).__init__()
                self.unknown_dims = set()

            def evaluate_expr(self, orig_expr, hint=None, fx_node=None, size_oblivious=False,
                              fallback_value=None, *, forcing_spec=False):
                if isinstance(orig_expr, (sympy.Eq, sympy.Ne)) and self._merge(orig_expr):
                    hint = None         # the stand-in sizes changed: decide from them
                return super(MergingShapeEnv, self).evaluate_expr(
                    orig_expr, hint, fx_node, size_oblivious, fallback_value,
                    forcing_spec=forcing_spec)

            def _merge(self, relation):
                if self._maybe_evaluate_static(relation) is not None:
                    return False
                difference = self.simplify(relation.lhs - relation.rhs)
                for symbol in sorted(difference.free_symbols & self.unknown_dims, key=str):
                    coefficient = difference.coeff(symbol)
                    rest = difference - coefficient * symbol
                    if not coefficient.is_number or coefficient == 0 or \
                            symbol in rest.free_symbols:
                        continue
                    value = -rest.xreplace(self.backed_var_to_val) / coefficient
                    if value.is_Integer and value >= 2:     # unknown dims are sizes >= 2
                        self.backed_var_to_val[symbol] = value
                        self.unknown_dims.discard(symbol)
                        return True
                return False
        _MERGING_SHAPE_ENV.append(MergingShapeEnv)
    return _MERGING_SHAPE_ENV[0]()


_DIVISIBLE_STAND_IN = 2 ** 12 * 3 ** 4 * 5 ** 2 * 7 ** 2


def _constant_value(expr, stand_ins):
    """The integer `expr` (of unknown dims' symbols) equals whatever their sizes, judged
    by two sets of stand-in sizes (the second 1009 times the first); None if it varies.
    Sympy leaves `s // (28 * (s // 784))` (the 28 of `reshape(x, [-1, 28, 28, 1])`) as is."""
    values = set()
    for scale in (1, 1009):
        value = expr.xreplace({symbol: stand_ins[symbol] * scale
                               for symbol in expr.free_symbols if symbol in stand_ins})
        if not value.is_Integer:
            return None
        values.add(int(value))
    return values.pop() if len(values) == 1 else None


def _merged_fake_run(fake_mode, bound, fakes, stand_in_factor=1):
    """`bound` on copies of `fakes` whose unknown dims are symbols of a scratch
    `_merging_shape_env`, so that an op requiring an unknown dim to equal a size or another
    unknown dim finds them equal, as TF's shape inference merges them for this op only.
    The outputs come back as fakes of `fake_mode`: known sizes (merged ones included) stay,
    an unknown dim equal to an input's stays that dim, any other becomes a new unknown dim.
    `stand_in_factor` multiplies the unknown dims' stand-in sizes (a highly divisible one
    lets `reshape(x, [-1, 28, 28, 1])` of unknown dims pass, as TF does not check there).
    Returns None if the op fails here too."""
    from torch._dynamo.source import ConstantSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic
    env = _merging_shape_env()
    scratch_mode = _SerializedFakeTensorMode(shape_env=env, allow_non_fake_inputs=True)
    scratch_dims, outer_dims = {}, {}

    def scratch_size(size):
        if not isinstance(size, torch.SymInt):
            return size
        expr = size.node.expr
        if expr not in scratch_dims:
            hint = stand_in_factor * (size.node.hint if size.node.has_hint()
                                      else 2 * len(scratch_dims) + 3)
            symbol = env.create_symbol(hint, ConstantSource("unknown_dim_%d" % len(scratch_dims)),
                                       dynamic_dim=DimDynamic.DYNAMIC)
            env.unknown_dims.add(symbol)
            scratch_dims[expr] = env.create_symintnode(symbol, hint=hint)
            outer_dims[symbol] = size
        return scratch_dims[expr]

    def outer_size(size):
        if not isinstance(size, torch.SymInt):
            return size
        expr = env.simplify(size.node.expr)
        if expr.is_number:
            return int(expr)
        known = outer_dims.get(expr)
        if known is not None:
            return known
        constant = _constant_value(expr, env.backed_var_to_val)
        return constant if constant is not None else \
            fake_mode.shape_env.create_unbacked_symint()

    def copy(value, mode, size):
        if isinstance(value, torch.Tensor):
            with mode:
                return torch.empty([size(d) for d in value.shape], dtype=value.dtype,
                                   device=value.device)
        if isinstance(value, (tuple, list)):
            parts = [copy(v, mode, size) for v in value]
            return type(value)(*parts) if hasattr(value, "_fields") else type(value)(parts)
        return value

    scratch_fakes = [copy(f, scratch_mode, scratch_size) for f in fakes]
    try:
        with scratch_mode:
            result = bound(*scratch_fakes)
    except Exception:       # noqa: BLE001 - the caller raises the first failure
        return None
    with fake_mode.shape_env.suppress_guards():
        return copy(result, fake_mode, outer_size)


_shape_inference_loaded = False


def _load_shape_inference():
    """Imports, once per process, what shape inference on fake tensors loads: sympy and
    ShapeEnv (~0.3 s) and torch._dynamo, which FakeTensorMode imports for its config and
    torch's decompositions call (~0.9 s). They are long-lived imports
    (`_dependencies.long_lived_imports`): the cyclic GC would otherwise walk the whole
    heap twice while they load."""
    global _shape_inference_loaded
    if not _shape_inference_loaded:
        with long_lived_imports():
            import torch._dynamo  # noqa: F401
            _light_shape_env_class()
        _shape_inference_loaded = True


# ---------------------------------------------------------------- the graph


@tf_export("Graph")
class Graph(object):
    """`tf.Graph`: ops recorded into a torch.fx graph, with TF's names and collections."""

    building_function = False

    def __new__(cls, *args, **kwargs):
        # The first graph loads shape inference (~1.2 s eager scripts skip) and freezes the
        # objects then alive; a graph made before that would stay alive, with all its ops.
        _load_shape_inference()
        return super(Graph, cls).__new__(cls)

    def __init__(self):
        self._fx = torch.fx.Graph()
        self._names_in_use = {}
        self._ops = []
        self._ops_by_name = {}
        self._collections = {}
        self._per_thread = _ThreadBuildingState()
        self._finalized = False
        self._version = 0
        self._variable_inputs = {}
        self._captures = {}
        self._fake_mode = _SerializedFakeTensorMode(shape_env=_hint_checking_shape_env(),
                                                    allow_non_fake_inputs=True)
        self._stand_ins = {}
        self.seed = None

    # ------------------------------------------------------------ default graph
    @contextlib.contextmanager
    def as_default(self):
        context.push_graph(self)
        try:
            yield self
        finally:
            context.pop_graph(self)

    def finalize(self):
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    def _unsafe_unfinalize(self):
        self._finalized = False

    @property
    def version(self):
        return self._version

    @property
    def graph_def_versions(self):
        from tensorboard.compat.proto import versions_pb2
        return versions_pb2.VersionDef(producer=1286)

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    # ------------------------------------------------------------ names
    @_serialized
    def unique_name(self, name, mark_as_used=True):
        """TF's uniquification: "scope/name", then "scope/name_1", "scope/name_2" ..."""
        scope = self._per_thread.scope
        full = scope + name if scope else name
        key = full.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count > 0:
            base = key
            while True:
                candidate = "%s_%d" % (full, count)
                if candidate.lower() not in self._names_in_use:
                    break
                count += 1
            if mark_as_used:
                self._names_in_use[candidate.lower()] = 1
                self._names_in_use[base] = count + 1
            return candidate
        return full

    def get_name_scope(self):
        scope = self._per_thread.scope
        return scope[:-1] if scope.endswith("/") else scope

    def current_scope(self):
        return self._per_thread.scope

    @contextlib.contextmanager
    def name_scope(self, name):
        """TF1 graph name scopes (per thread, as TF's): uniquified, "a/" re-enters,
        None/"" resets to the root."""
        per_thread = self._per_thread
        old = per_thread.scope
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name
        else:
            if not _VALID_NAME.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
            new = self.unique_name(name) + "/"
        per_thread.scope = new
        try:
            yield new
        finally:
            per_thread.scope = old

    # ------------------------------------------------------------ control dependencies
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops this thread creates in the block depend on `control_inputs` (None clears
        them); per thread, as TF keeps its control-dependency stack."""
        per_thread = self._per_thread
        if control_inputs is None:
            saved, per_thread.control_stack = per_thread.control_stack, []
            try:
                yield
            finally:
                per_thread.control_stack = saved
            return
        resolved = []
        for c in control_inputs:
            if callable(c) and not isinstance(c, (Operation, Tensor)):
                c = c()
            c = self.as_graph_element(c)
            resolved.append(c if isinstance(c, Operation) else c.op)
        per_thread.control_stack.append(resolved)
        try:
            yield
        finally:
            per_thread.control_stack.pop()

    def _current_control_inputs(self):
        seen, result = set(), []
        for group in self._per_thread.control_stack:
            for op in group:
                if id(op) not in seen:
                    seen.add(id(op))
                    result.append(op)
        return result

    # ------------------------------------------------------------ recording ops
    def _new_op(self, op_type, name, node, inputs):
        self._check_not_finalized()
        if name and name.endswith("/"):
            op_name = name[:-1]
            self._names_in_use[op_name.lower()] = self._names_in_use.get(op_name.lower(), 0) or 1
        else:
            op_name = self.unique_name(name or op_type)
        operation = Operation(self, op_name, op_type, node, inputs,
                              self._current_control_inputs())
        node.meta["tf_op"] = operation
        self._ops.append(operation)
        self._ops_by_name[op_name] = operation
        self._version += 1
        return operation

    def _placeholder_node(self, kind):
        # fx placeholders must precede other nodes for codegen; we only copy nodes into
        # fresh graphs (build_module), so the order here does not matter.
        return self._fx.create_node("placeholder", "%s_%d" % (kind, len(self._fx.nodes)))

    @_serialized
    def placeholder(self, dtype, shape, name=None, op_type="Placeholder"):
        """A fed input; `None` dimensions become symbolic sizes."""
        dtype = dtypes.as_dtype(dtype)
        shape = TensorShape(shape)
        node = self._placeholder_node("feed")
        fake = self._fake_for_shape(shape, dtype)
        operation = self._new_op(op_type, name, node, [])
        tensor = SymbolicTensor(operation, 0, fake, dtype, shape)
        node.meta["input_kind"] = "feed"
        node.meta["tf_tensor"] = tensor
        operation.outputs.append(tensor)
        return tensor

    def _fake_for_shape(self, shape, dtype):
        if dtype is dtypes.string:
            # numpy has no symbolic sizes: unknown dims take stand-in sizes, and the static
            # shapes of what is computed from such a tensor are marked unknown (see record).
            # The stand-in value "0" also parses as a number, for ops that read the values.
            dims = shape.as_list() if shape.rank is not None else []
            return np.full([d if d is not None else 2 * i + 3 for i, d in enumerate(dims)],
                           b"0", dtype=object)
        if shape.rank is None:
            # Unknown rank: this scalar only gives the dtype; ops using the tensor run on
            # stand-ins of several ranks (see _fake_run_unknown_rank).
            return self._fake_mode.from_tensor(torch.empty((), dtype=dtype.torch_dtype))
        from torch.fx.experimental.symbolic_shapes import DimDynamic, StatelessSymbolicContext
        hint = [d if d is not None else 2 * i + 3 for i, d in enumerate(shape.as_list())]
        dynamic = [DimDynamic.STATIC if d is not None else DimDynamic.DYNAMIC
                   for d in shape.as_list()]
        real = torch.empty(hint, dtype=dtype.torch_dtype)
        return self._fake_mode.from_tensor(real, symbolic_context=StatelessSymbolicContext(
            dynamic_sizes=dynamic, constraint_sizes=[None] * len(hint)))

    @_serialized
    def variable_input(self, variable):
        """The symbolic tensor standing for a variable's storage in this graph."""
        key = id(variable)
        entry = self._variable_inputs.get(key)
        if entry is None:
            storage = variable._storage_meta()
            node = self._placeholder_node("var")
            operation = self._new_op("VarHandleOp", variable._graph_op_name(), node, [])
            if isinstance(storage, np.ndarray):     # a string variable
                fake = np.full(storage.shape, b"0", dtype=object)
            elif getattr(storage, "fake_mode", None) is self._fake_mode:
                fake = storage
            else:
                fake = self._fake_mode.from_tensor(storage, static_shapes=True)
            tensor = SymbolicTensor(operation, 0, fake, dtypes.string
                                    if isinstance(storage, np.ndarray) else None)
            node.meta["input_kind"] = "variable"
            node.meta["variable"] = variable
            node.meta["tf_tensor"] = tensor
            operation.outputs.append(tensor)
            entry = self._variable_inputs[key] = (variable, tensor)
        return entry[1]

    @_serialized
    def capture(self, value):
        """A concrete torch tensor used by graph ops (an eager tensor or constant)."""
        key = id(value)
        entry = self._captures.get(key)
        if entry is None:
            node = self._placeholder_node("const")
            operation = self._new_op("Const", "Const", node, [])
            fake = self._fake_mode.from_tensor(value, static_shapes=True) \
                if isinstance(value, torch.Tensor) else value
            tensor = SymbolicTensor(operation, 0, fake,
                                    dtypes.string if isinstance(value, np.ndarray) else None)
            node.meta["input_kind"] = "capture"
            node.meta["value"] = value
            node.meta["tf_tensor"] = tensor
            operation.outputs.append(tensor)
            entry = self._captures[key] = (value, tensor)
        return entry[1]

    def _as_input(self, value):
        """Map one argument leaf to a SymbolicTensor of this graph, or None if not a tensor."""
        if isinstance(value, SymbolicTensor):
            if value.graph is not self:
                return self._foreign(value)
            return value
        if type(value) is EagerTensor:
            return self.capture(value._t)
        if hasattr(value, "_tfcompat_tensor_"):
            return value._graph_tensor(self)
        return None

    @_serialized
    def record_custom(self, fn, op_type, inputs, fake_out, name=None, stateful=True):
        """Add a node calling `fn(*input_values)` whose outputs look like `fake_out`.

        For ops that cannot run on fake tensors (control flow, gradients, checks).
        An op without outputs (`fake_out` None) returns its Operation. A tf.function runs
        the node even where no output needs it unless it is marked `stateful=False`.
        """
        inputs = [self._as_input(t) for t in inputs]
        node = self._fx.create_node("call_function", fn, tuple(t._node for t in inputs))
        operation = self._new_op(op_type, name, node, inputs)
        node.meta["stateful"] = stateful
        if fake_out is None:
            return operation
        return self._outputs(operation, node, fake_out)

    @_serialized
    def placeholder_like(self, tensor, shape=None):
        """A fed input with the dtype and (static) shape of `tensor` (same fake mode)."""
        node = self._placeholder_node("feed")
        operation = self._new_op("Placeholder", "Placeholder", node, [])
        result = SymbolicTensor(operation, 0, tensor._fake, tensor.dtype,
                                tensor.shape if shape is None else TensorShape(shape))
        node.meta["input_kind"] = "feed"
        node.meta["tf_tensor"] = result
        operation.outputs.append(result)
        return result

    def _foreign(self, tensor):
        raise ValueError("Tensor %s must be from the same graph as the other inputs of this op "
                         "(it belongs to another tf.Graph)" % tensor.name)

    @_serialized
    def record(self, fn, op_type, args, kwargs):
        """Add one op node calling `fn`; returns its outputs as SymbolicTensors."""
        name = kwargs.get("name") if isinstance(kwargs.get("name"), str) else None
        inputs = []
        args_t = self._template(tuple(args), inputs)
        kwargs_t = self._template(dict(kwargs), inputs)
        op_class = ConstantOp if op_type == "Const" and not inputs else BoundOp
        return self.record_bound(op_class(fn, op_type, args_t, kwargs_t), inputs, name)

    @_serialized
    def record_bound(self, bound, inputs, name=None):
        """Add the node of `bound` (a BoundOp whose `_Slot`s number `inputs`, tensors of this
        graph) named `name` ("scope/name/" exactly); returns its outputs as SymbolicTensors.
        `record` builds `bound` from an op call; importing a meta graph builds it from a
        NodeDef."""
        op_type = bound.op_type
        unknown_rank = [i for i, t in enumerate(inputs) if t._static.rank is None]
        try:
            if unknown_rank:
                fake_out, static_shapes = self._fake_run_unknown_rank(bound, inputs,
                                                                      unknown_rank)
            else:
                fake_out, static_shapes = self._fake_run_checked(bound, inputs)
        except errors.InvalidArgumentError as error:
            raise ValueError(self._shape_inference_message(error, op_type, name, inputs)) \
                .with_traceback(_without_torch_frames(error.__traceback__.tb_next)) from None
        if not unknown_rank and all(t._dtype not in _UNLOWERED_DTYPES for t in inputs):
            bound.lower([t._fake for t in inputs])
        node = self._fx.create_node("call_function", bound, tuple(t._node for t in inputs))
        operation = bound.operation = self._new_op(op_type, name, node, inputs)
        outputs = self._outputs(operation, node, fake_out)
        if outputs is None:
            return operation
        if static_shapes is not None:
            for tensor, static in zip(operation.outputs, static_shapes):
                tensor._static = static
                if static.rank is not None and \
                        static.as_list() != _static_shape(tensor._fake).as_list():
                    tensor._fake = self._fake_for_shape(static, tensor._dtype)
        elif any(t._dtype is dtypes.string and not t._static.is_fully_defined()
                 for t in inputs):
            for tensor in operation.outputs:
                tensor._static = TensorShape([None] * tensor._static.rank)
        return outputs

    def _shape_inference_message(self, error, op_type, name, inputs):
        """TF's graph-construction message for an op rejecting its inputs' shapes:
        "Dimensions must be equal, but are 3 and 4 for '{{node add}} = AddV2[T=DT_FLOAT](x,
        y)' with input shapes: [?,3], [4]." We show only the `T` attr (the first non-bool
        input's dtype: a Select's condition is not its T), where TF lists all of the op's
        attrs."""
        op_name = name[:-1] if name and name.endswith("/") else \
            self.unique_name(name or op_type, mark_as_used=False)
        values = [t for t in inputs if t.dtype is not dtypes.bool] or inputs
        attrs = "[T=%s]" % _datatype_name(values[0].dtype) if values else ""
        return "%s for '{{node %s}} = %s%s(%s)' with input shapes: %s." % (
            errors.kernel_message(error.message), op_name, op_type, attrs,
            ", ".join(t.name if t.value_index else t.op.name for t in inputs),
            ", ".join(errors.format_shape(t.shape) for t in inputs))

    def _template(self, value, inputs):
        """`value` with each tensor replaced by a `_Slot` numbering it in `inputs`."""
        cls = type(value)
        if cls is tuple or cls is list:
            return cls(self._template(v, inputs) for v in value)
        if cls is dict:
            return {k: self._template(v, inputs) for k, v in value.items()}
        tensor = self._as_input(value)
        if tensor is None:
            return value
        inputs.append(tensor)
        return _Slot(len(inputs) - 1)

    def _fake_run_checked(self, bound, inputs):
        """`bound` run on the inputs' fakes: (fake outputs, None), or (fake outputs, static
        shapes) when a stand-in size decided something other sizes would decide otherwise:
        a second run with other stand-ins then shows which output dims depend on them, and
        those are unknown in the static shapes (TF: `x[8:16]` of `[None, 4]` is `[?,4]`)."""
        fakes = [t._fake for t in inputs]
        shape_env = self._fake_mode.shape_env
        shape_env.stand_in_decided = False
        result = self._fake_run(bound, fakes)
        if not shape_env.stand_in_decided:
            return result, None
        shape_env.stand_in_decided = False
        check = _merged_fake_run(self._fake_mode, bound, fakes, 1009)
        if check is None:
            return result, None
        first, second = _flatten_fakes(result), _flatten_fakes(check)
        if len(first) != len(second):
            return result, None
        return result, [_agreed_shape([_static_shape(a), _static_shape(b)])
                        for a, b in zip(first, second)]

    def _fake_run(self, bound, fakes):
        """`bound` run on fake inputs: its outputs' shapes and dtypes.

        Comparisons involving unknown dims are decided by their stand-in sizes, and not
        remembered (a stand-in size that happens to equal a constant must not make the dim
        known to later ops). An op that fails on unknown dims runs once more with them merged
        as TF's shape inference merges an unknown dim with what it must equal
        (`_merged_fake_run`), then also with highly divisible stand-in sizes (a reshape
        with -1 of unknown dims); if that fails too, the first error is raised.
        """
        with self._fake_mode, self._fake_mode.shape_env.suppress_guards():
            try:
                return bound(*fakes)
            except Exception as error:      # noqa: BLE001 - any failure may come from a stand-in
                if not any(isinstance(f, torch.Tensor) and _has_unknown_dims(f) for f in fakes):
                    raise
                failure = error
        result = _merged_fake_run(self._fake_mode, bound, fakes)
        if result is None:
            result = _merged_fake_run(self._fake_mode, bound, fakes, _DIVISIBLE_STAND_IN)
        if result is None:
            raise failure
        return result

    def _fake_run_unknown_rank(self, bound, inputs, unknown_rank):
        """`bound` run for an op with unknown-rank inputs: (fake outputs, static shapes).

        An unknown-rank tensor has no fake of its own rank: each op using it runs on
        stand-ins of every rank from 0 to two more than its other inputs' largest rank, at
        least to 3 (all unknown-rank inputs taking the same rank, all dims unknown). A rank no stand-in
        accepts is what TF's shape inference would reject for any rank; if no rank is
        accepted, the last failure is raised. An output's static shape keeps what all
        accepted ranks agree on (a rank, then each dim): `tf.matmul(x, w)` is `<unknown>`,
        `tf.reduce_sum(x)` is `()`, `tf.shape(x)` is `(None,)`. Ops whose rank requirement
        TF checks in Python (`tf.unstack`, Dense layers) read the static shape and raise.
        We differ from TF where its shape functions assume a rank (TF1's MatMul on an
        unknown-rank input gives `(None, 10)`, we `<unknown>`), and where unknown-rank
        inputs must have different ranks (`bias_add` of two of them): we raise."""
        known_ranks = [t._static.rank for t in inputs if t._static.rank is not None]
        runs, failure = [], None
        for rank in range(max(known_ranks + [1]) + 3):
            fakes = [t._fake for t in inputs]
            for i in unknown_rank:
                fakes[i] = self._stand_in(rank, inputs[i]._dtype)
            try:
                result = self._fake_run(bound, fakes)
            except Exception as error:      # noqa: BLE001 - this rank is not accepted
                failure = error
                continue
            runs.append(result)
            outputs = [_flatten_fakes(run) for run in runs]
            if len({len(fakes) for fakes in outputs}) > 1:
                raise ValueError("%s cannot be built for an input of unknown rank: its "
                                 "number of outputs depends on the rank" % bound.op_type)
            static_shapes = [_agreed_shape([_static_shape(f) for f in fakes])
                             for fakes in zip(*outputs)]
            if len(runs) > 1 and all(shape.rank is None for shape in static_shapes):
                break       # nothing more to learn from other ranks
        if not runs:
            raise failure
        return runs[0], static_shapes

    def _stand_in(self, rank, dtype):
        """The fake standing in for unknown-rank tensors of `dtype` at `rank` (all dims
        unknown), made once per graph: fresh symbols would cost ~10 ms per op."""
        key = (rank, dtype)
        fake = self._stand_ins.get(key)
        if fake is None:
            fake = self._stand_ins[key] = self._fake_for_shape(TensorShape([None] * rank), dtype)
        return fake

    def _outputs(self, operation, node, fake_out):
        """Wrap the fake result's tensors as SymbolicTensors (getitem nodes for sequences)."""
        def build(value, make_node):
            cls = type(value)
            if isinstance(value, torch.Tensor) or (cls is np.ndarray and value.dtype == object):
                tensor = SymbolicTensor(operation, len(operation.outputs), value,
                                        dtypes.string if cls is np.ndarray else None,
                                        node=make_node())
                operation.outputs.append(tensor)
                return tensor
            if cls is tuple or cls is list or (isinstance(value, tuple) and
                                               hasattr(value, "_fields")):
                seq_node = make_node()
                parts = [build(v, lambda i=i: self._fx.create_node(
                    "call_function", operator.getitem, (seq_node, i)))
                    for i, v in enumerate(value)]
                return cls(*parts) if hasattr(value, "_fields") else cls(parts)
            return value
        return build(fake_out, lambda: node)

    # ------------------------------------------------------------ lookup
    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %r" % (name,))
        op = self._ops_by_name.get(name)
        if op is None:
            raise KeyError("The name %r refers to an Operation not in the graph." % name)
        return op

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %r" % (name,))
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError("The name %r looks a like an Operation name, not a Tensor name; "
                             "tensor names look like '<op_name>:<output_index>'." % name)
        op = self._ops_by_name.get(op_name)
        if op is None:
            raise KeyError("The name %r refers to a Tensor which does not exist. The operation, "
                           "%r, does not exist in the graph." % (name, op_name))
        if int(index) >= len(op.outputs):
            raise KeyError("The name %r refers to a Tensor which does not exist. The operation, "
                           "%r, exists but only has %d outputs." % (name, op_name,
                                                                    len(op.outputs)))
        return op.outputs[int(index)]

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj \
                else self.get_operation_by_name(obj)
        if hasattr(obj, "_as_graph_element") and obj._as_graph_element() is not None:
            obj = obj._as_graph_element()
        if isinstance(obj, (SymbolicTensor, Operation)):
            if obj.graph is not self:
                raise ValueError("%r is not an element of this graph." % (obj,))
            return obj
        raise TypeError("Can not convert a %s into a Tensor or Operation." % type(obj).__name__)

    def is_fetchable(self, tensor_or_op):
        return True

    def as_graph_def(self, from_version=None, add_shapes=False):
        """A real `GraphDef` proto (tensorboard's protos) naming every op and its inputs."""
        graph_def = GraphDef()
        graph_def.versions.CopyFrom(self.graph_def_versions)
        for op in self._ops:
            node_def = op.node_def
            if op.outputs:
                node_def.attr["T"].type = op.outputs[0].dtype.as_datatype_enum
            if add_shapes:
                for t in op.outputs:
                    node_def.attr["_output_shapes"].list.shape.add().CopyFrom(t.shape.as_proto())
            graph_def.node.add().CopyFrom(node_def)
        return graph_def

    # ------------------------------------------------------------ collections
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for name in ([names] if isinstance(names, str) else set(names)):
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [item for item in items
                if getattr(item, "name", None) is not None and pattern.match(item.name)]

    def get_all_collection_keys(self):
        return [k for k, v in self._collections.items() if v]

    def clear_collection(self, name):
        self._collections.pop(name, None)

    # ------------------------------------------------------------ execution
    @_serialized
    def build_module(self, feeds, outputs, run_all=False, keep_stateful=False,
                     values_only=False):
        """A GraphModule computing `outputs` (tensors or ops) from `feeds` + graph inputs.

        Returns (module, inputs) where `inputs` (a GraphInputs) holds, after the feeds, the
        graph input placeholders (variables, captures) the module takes, in order.
        Only what the outputs need (data and control dependencies) is kept, as Session.run
        prunes to its fetches; with `keep_stateful`, also every stateful node and what it
        needs, as a TF 2 function body runs (`_is_stateful`); with `run_all`, every node.
        Kept nodes run in program order. With `values_only` (Session.run's fetches) the
        outputs are cut from the autograd graph, so that nothing differentiates them later
        (which lets torch.compile keep a gradient node and its fetched loss in one graph).
        """
        fed = {id(t): i for i, t in enumerate(feeds)}
        fed_nodes = {t._node_ref(): t for t in feeds}
        roots = list(outputs)
        if keep_stateful:
            roots.extend(node.meta["tf_op"] for node in self._fx.nodes if _is_stateful(node))
        needed = self._needed_nodes(roots, fed_nodes) if not run_all else None
        new = torch.fx.Graph()
        env = {}
        for t in feeds:
            env[t._node_ref()] = new.placeholder("feed_%d" % fed[id(t)])
        extra_inputs = []
        for node in self._fx.nodes:
            if node in env or (needed is not None and node not in needed):
                continue
            if node.op == "placeholder":
                if node.meta.get("input_kind") == "feed":
                    tensor = node.meta["tf_tensor"]
                    raise _unfed(tensor)
                env[node] = new.placeholder("in_%d" % len(extra_inputs))
                extra_inputs.append(node)
                continue
            env[node] = new.node_copy(node, lambda n: env[n])
        result = []
        for out in outputs:
            if not isinstance(out, SymbolicTensor):
                result.append(None)
            elif values_only:
                result.append(new.call_function(_without_history, (env[out._node_ref()],)))
            else:
                result.append(env[out._node_ref()])
        new.output(tuple(result))
        holders = [node for node in new.nodes if node.meta.get("needs_grad")]
        retains_autograd_graph = _plan_gradient_nodes(new, holders)  # (before the codegen)
        module = torch.fx.GraphModule(torch.nn.Module(), new)
        module.thread_choice = ThreadChoice()
        module.needs_grad = bool(holders)
        module.retains_autograd_graph = retains_autograd_graph
        module.grad_inputs = _differentiated_inputs(new, holders)
        module.assigned_first = frozenset(
            position for position, node in enumerate(extra_inputs)
            if node.meta["input_kind"] == "variable" and node.meta["variable"]._in_graph()
            and _assigned_before_use(env[node]))
        return module, GraphInputs(extra_inputs)

    def _needed_nodes(self, outputs, fed_nodes):
        needed = set()
        stack = []
        for out in outputs:
            if isinstance(out, SymbolicTensor):
                stack.append(out._node_ref())
                stack.extend(op._node for op in out.op._control_inputs)
            elif isinstance(out, Operation):
                stack.append(out._node)
                stack.extend(op._node for op in out._control_inputs)
        while stack:
            node = stack.pop()
            if node in needed:
                continue
            needed.add(node)
            if node in fed_nodes:
                continue
            stack.extend(node.all_input_nodes)
            op = node.meta.get("tf_op")
            if op is not None and op._node is not node:
                stack.append(op._node)
            if op is not None:
                stack.extend(c._node for c in op._control_inputs)
        return needed


# The op types of our ops (`@op` nodes) that a TF 2 function runs though no output needs
# them: TF's stateful op types (`is_stateful` in its op registry) that automatic control
# dependencies keep (`auto_control_deps.op_is_stateful`; legacy random ops such as
# RandomUniform are not kept, so an unused `tf.random.uniform` is pruned as in TF), and our
# fused variable updates, which TF writes as assign ops. Hand-recorded nodes say for
# themselves (`record_custom(stateful=...)`).
STATEFUL_OP_TYPES = frozenset([
    "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
    "ResourceGather", "ResourceGatherNd", "ResourceScatterUpdate", "ResourceScatterAdd",
    "ResourceScatterSub", "ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin",
    "ResourceScatterMax", "ResourceScatterNdUpdate", "ResourceScatterNdAdd",
    "ResourceScatterNdSub", "LogUniformCandidateSampler",
    "KerasMetricUpdate", "KerasMeanMetricUpdate", "KerasConfusionUpdate",
    "KerasConfusionMatrixUpdate", "KerasMetricReset", "StreamingMeanUpdate",
    "ConfusionCountsUpdate", "UpdateLossScale", "MeanUpdate", "RngReadAndSkip",
])


def _is_stateful(node):
    """Whether `node` is an op a TF 2 function runs even where no output needs it: a
    hand-recorded node unless marked stateless, an `@op` node of a STATEFUL_OP_TYPES type."""
    stateful = node.meta.get("stateful")
    if stateful is not None:
        return stateful
    operation = node.meta.get("tf_op")
    return operation is not None and operation._node is node and \
        operation.type in STATEFUL_OP_TYPES


def _without_history(value):
    """A fetched value without its autograd history."""
    return value.detach() if isinstance(value, torch.Tensor) else value


def _assigned_before_use(placeholder):
    """Whether the first node using a variable's storage (nodes run in order) is an
    AssignVariableOp (or a ref variable's Assign, in graphs real TF wrote) overwriting it
    with another value."""
    first = next(iter(placeholder.users), None)
    operation = None if first is None else first.meta.get("tf_op")
    return operation is not None and operation.type in ("AssignVariableOp", "Assign") and \
        first.args[0] is placeholder and placeholder not in first.args[1:]


class _Differentiation(threading.local):
    """Per thread, for the gradient node about to run: whether its gradients must be
    differentiable themselves (`twice`), and whether its backward pass is the only one over
    the values its module computed (`last`)."""

    twice = False
    last = False


_differentiation = _Differentiation()


def gradients_differentiable():
    """True while a node whose gradients are differentiated later runs (see
    `_plan_gradient_nodes`); gradient nodes then build a graph of their backward
    pass (`create_graph`), which fused torch kernels pay for with slower backward formulas."""
    return _differentiation.twice


def backward_is_last():
    """Whether the gradient node now starting is the only one of its executed module (see
    `_plan_gradient_nodes`): its backward pass may then free the saved tensors it walks
    (`retain_graph=False`), as compiled backward passes require. Reading it clears it, so
    gradient nodes run from within that backward pass do not see it."""
    state = _differentiation
    last, state.last = state.last, False
    return last


class _GradientNodeRun(object):
    """An fx call target running the gradient node `target` with `gradients_differentiable()`
    true (`twice`) and/or `backward_is_last()` true (`last`)."""

    def __init__(self, target, twice, last):
        self.target, self.twice, self.last = target, twice, last
        self.__name__ = getattr(target, "__name__", "gradients")

    def __call__(self, *args):
        state = _differentiation
        previous = state.twice, state.last
        state.twice, state.last = previous[0] or self.twice, self.last
        try:
            return self.target(*args)
        finally:
            state.twice, state.last = previous

    def __repr__(self):
        return "<gradients of %r (twice=%s, last=%s)>" % (self.target, self.twice, self.last)


def _plan_gradient_nodes(fx_graph, holders):
    """Wrap the gradient nodes of `fx_graph` that run differently from the default (a
    backward pass that keeps its autograd graph and builds none of its own).

    `holders` are its gradient-holding nodes (`meta["needs_grad"]`): tf.gradients and
    GradientTape nodes, which differentiate their first `meta["differentiated_inputs"]`
    inputs (the ys), and control-flow nodes whose branches or bodies hold one, taken to
    differentiate any of their inputs. A holder whose outputs reach an input that another
    holder differentiates (hessians, gradient penalties, MAML-style inner steps) runs with
    `gradients_differentiable()`; every other gradient node skips the double-backward graph.
    A module's only holder, when it is a gradient node, runs with `backward_is_last()`.
    Returns whether a backward pass of the module keeps its autograd graph.
    """
    if len(holders) == 1 and holders[0].meta.get("differentiated_inputs") is not None:
        holders[0].target = _GradientNodeRun(holders[0].target, twice=False, last=True)
        return False
    if len(holders) < 2:
        return bool(holders)
    empty = frozenset()
    computed_from = {}      # node -> the holders whose outputs its value depends on

    def holders_behind(node):
        behind = computed_from.get(node, empty)
        return behind | {node} if node.meta.get("needs_grad") else behind

    differentiated_again = set()
    for node in fx_graph.nodes:
        behind = empty
        for parent in node.all_input_nodes:
            behind = behind | holders_behind(parent)
        if behind:
            computed_from[node] = behind
        if node.meta.get("needs_grad"):
            count = node.meta.get("differentiated_inputs")
            for parent in node.args[:count] if count is not None else node.all_input_nodes:
                differentiated_again |= holders_behind(parent)
    for node in differentiated_again:
        node.target = _GradientNodeRun(node.target, twice=True, last=False)
    return True


def _differentiated_inputs(fx_graph, holders):
    """Positions of the module inputs that gradient nodes differentiate with respect to:
    the xs of tf.gradients / tape nodes (their inputs after the ys), every input of a
    control-flow node holding one. Only these become leaves that require grad when the
    module runs (intermediate xs are made leaves by `gradients_impl._watch`)."""
    positions = {node: i for i, node in enumerate(
        n for n in fx_graph.nodes if n.op == "placeholder")}
    differentiated = set()
    for holder in holders:
        count = holder.meta.get("differentiated_inputs")
        parents = holder.args[count:] if count is not None else holder.all_input_nodes
        differentiated.update(positions[p] for p in parents if p in positions)
    return frozenset(differentiated)


def _unfed(tensor):
    return errors.InvalidArgumentError(
        "You must feed a value for placeholder tensor '%s' with dtype %s%s" % (
            tensor.op.name, tensor.dtype.name,
            "" if tensor.shape.rank is None else " and shape %s" % (tensor.shape,)))


def input_value(node):
    """The concrete value a graph-input placeholder node takes at run time."""
    kind = node.meta["input_kind"]
    if kind == "variable":
        return node.meta["variable"]._storage_for_graph()
    return node.meta["value"]


class GraphInputs(object):
    """The graph inputs a module takes after its feeds (`build_module`'s input nodes:
    variable storages, captured eager tensors), and their values for a run.

    A TF1 graph variable's storage is the running session's, and stays the same tensor until
    the session gives some variable a new one (an initializer, a restore, an assign that
    reshapes; `Session._variables_version` counts them). So under a session those storages
    are looked up once per version and kept, those the module's gradients are taken with
    respect to already made leaves: a step of a graph with hundreds of variables (and their
    optimizer slots) does not look each one up again, as TF's executor does not.
    Every other input (an eager variable, a captured tensor) is read at each run."""

    __slots__ = ("nodes", "_cached")

    def __init__(self, nodes):
        self.nodes = list(nodes)
        self._cached = None     # (session, version, values, positions read at each run)

    def values(self):
        """The inputs' values, each read now."""
        return [input_value(n) for n in self.nodes]

    def values_for(self, module, first):
        """The inputs' values for a run of `module`, whose inputs start at position `first`
        (after the feeds): the session's variable storages as `module`'s differentiable
        leaves, looked up again only when the session gave a variable new storage."""
        session = running_session()
        if session is None or not self.nodes:
            return self.values()
        cached = self._cached
        version = session._variables_version
        if cached is None or cached[0]() is not session or cached[1] != version:
            cached = self._cached = self._resolve(session, version, module, first)
        values = list(cached[2])
        for position in cached[3]:
            values[position] = input_value(self.nodes[position])
        return values

    def _resolve(self, session, version, module, first):
        values = self.values()
        read_each_run = []
        for position, node in enumerate(self.nodes):
            variable = node.meta.get("variable")
            if node.meta["input_kind"] != "variable" or not variable._in_graph():
                read_each_run.append(position)
            elif position + first in module.grad_inputs:
                values[position] = _differentiable_leaf(values[position])
        return weakref.ref(session), version, tuple(values), tuple(read_each_run)


def _differentiable_leaf(value):
    if isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex()) \
            and not value.requires_grad:
        return value.detach().requires_grad_(True)
    return value


def run_module(module, feed_values, extra_nodes):
    """Run a GraphModule from build_module with its feeds and graph inputs.

    A module holding gradient nodes runs with grad enabled, and the inputs its gradients
    are taken with respect to (`module.grad_inputs`) become leaves that require grad.
    """
    if module.assigned_first:
        return _run_initializing_by_assignment(module, feed_values, extra_nodes)
    return _call(module, list(feed_values) + extra_nodes.values_for(module, len(feed_values)))


def _call(module, values):
    """Run `module` on `values` (a list the caller built: the inputs gradients are taken
    with respect to are replaced in it by leaves that require grad), flushing denormals to
    zero as TF's executor does, on the torch threads that suit it (`thread_choice`; not for
    a compiled module, whose first run compiles). A module run while torch.compile traces
    another (a loop body, a branch, a called function) is traced into it: the outer run has
    set up denormals and threads."""
    if torch.compiler.is_compiling():
        return _run_with_gradients(module, values, False)
    with _FLUSH_DENORMALS:
        return _run_with_gradients(module, values, True)


def _run_with_gradients(module, values, choose_threads):
    if module.needs_grad:
        for i in module.grad_inputs:
            values[i] = _differentiable_leaf(values[i])
        with torch.enable_grad():
            return _run(module, values, choose_threads)
    return _run(module, values, choose_threads)


def _run(module, values, choose_threads):
    if choose_threads and isinstance(module, torch.fx.GraphModule):
        return module.thread_choice.run(module, *values)
    return module(*values)


_FLUSH_DENORMALS = flush_denormals()


def _run_initializing_by_assignment(module, feed_values, extra_nodes):
    """`run_module` where the module's first use of some TF1 graph variables overwrites
    them whole (`module.assigned_first`, their positions among `extra_nodes`): a variable
    without a value yet gets fresh storage, which is its value once the run succeeded, as TF
    lets an assign initialize a variable."""
    values = list(feed_values)
    initializers = []
    for position, node in enumerate(extra_nodes.nodes):
        if position in module.assigned_first:
            storage, initialize = node.meta["variable"]._storage_for_assignment()
            if initialize is not None:
                initializers.append(initialize)
            values.append(storage)
        else:
            values.append(input_value(node))
    outputs = _call(module, values)
    for initialize in initializers:
        initialize()
    return outputs


class SubGraph(Graph):
    """A graph traced inside another one (a cond branch, a loop body): tensors of enclosing
    graphs that it uses become its inputs (`outer_captures`).

    As TF1 builds control-flow bodies in the enclosing graph, a sub-graph shares that graph's
    name scope and names in use: ops inside are named under the current scope, and a scope
    set inside (`name_scope(None)` around `get_variable`) also holds for what `init_scope`
    creates in the enclosing graph (the variables).
    """

    building_function = True

    def __init__(self, outer):
        super(SubGraph, self).__init__()
        self.outer = outer
        self.outer_captures = []
        self._fake_mode = outer._fake_mode
        self._stand_ins = outer._stand_ins
        self._collections = outer._collections
        self._names_in_use = outer._names_in_use
        self.seed = outer.seed

    def unique_name(self, name, mark_as_used=True):
        return self.outer.unique_name(name, mark_as_used)

    def get_name_scope(self):
        return self.outer.get_name_scope()

    def current_scope(self):
        return self.outer.current_scope()

    def name_scope(self, name):
        return self.outer.name_scope(name)

    def _foreign(self, tensor):
        for outer_tensor, inner in self.outer_captures:
            if outer_tensor is tensor:
                return inner
        graph = self.outer
        while graph is not tensor.graph and isinstance(graph, SubGraph):
            graph = graph.outer
        if graph is not tensor.graph:
            return Graph._foreign(self, tensor)
        outer_tensor = self.outer._as_input(tensor)
        inner = self.placeholder_like(tensor)
        self.outer_captures.append((tensor, inner))
        return inner

    def variable_input(self, variable):
        """A variable read inside is an input of the enclosing op (its storage, passed as
        is, so assignments inside update it), so gradients reach it through the op."""
        return self._foreign(self.outer.variable_input(variable))


class TracedFunction(object):
    """`fn` traced into a SubGraph of `outer` on placeholders like `arg_tensors`.

    `outputs` is fn's result structure with SymbolicTensors of the sub-graph;
    call it with the argument values and the values of `captured` (outer tensors).
    """

    def __init__(self, outer, fn, arg_tensors, arg_shapes=None):
        graph = self.graph = SubGraph(outer)
        with graph.as_default():
            self.args = [graph.placeholder_like(t, None if arg_shapes is None else arg_shapes[i])
                         for i, t in enumerate(arg_tensors)]
            self.outputs = fn(*self.args)
        flat = [t for t in _flatten(self.outputs) if isinstance(t, SymbolicTensor)]
        self.flat_outputs = [t if t.graph is graph else graph._as_input(t) for t in flat]
        self.captured = [outer_tensor for outer_tensor, _ in graph.outer_captures]
        feeds = self.args + [inner for _, inner in graph.outer_captures]
        self._module, self._extra = graph.build_module(feeds, self.flat_outputs,
                                                       keep_stateful=True)

    def __call__(self, arg_values, captured_values):
        """Run it as a graph run does: gradients taken inside (a tf.custom_gradient's
        traced grad_fn run during a backward pass, where grad may be off) are taken with
        grad enabled, with respect to inputs that require grad (see `_call`)."""
        return _call(self._module, [*arg_values, *captured_values, *self._extra.values()])

    @property
    def needs_grad(self):
        return self._module.needs_grad


def _flatten(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    return [structure]


# ---------------------------------------------------------------- the default graph

_default_graph = []


@tf_export(v1=["get_default_graph"])
def get_default_graph():
    """The innermost `Graph.as_default()` graph, else the process-wide default graph."""
    stack = context.state.graph_stack
    if stack:
        return stack[-1]
    if not _default_graph:
        _default_graph.append(Graph())
    return _default_graph[0]


@tf_export(v1=["reset_default_graph"])
def reset_default_graph():
    """Replace the process-wide default graph (not allowed inside `Graph.as_default()`)."""
    if context.state.graph_stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new graph.")
    del _default_graph[:]


@tf_export(v1=["add_to_collection"])
def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


@tf_export(v1=["add_to_collections"])
def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


@tf_export(v1=["get_collection"])
def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


@tf_export(v1=["get_collection_ref"])
def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


@tf_export("control_dependencies")
def control_dependencies(control_inputs):
    """Ops created in the block run after `control_inputs` (eager: ops already ran in order)."""
    if not context.state.building_graph:
        return contextlib.nullcontext()
    return get_default_graph().control_dependencies(control_inputs)


@tf_export(v1=["placeholder"])
def placeholder(dtype, shape=None, name=None):
    """`tf.placeholder`: a graph input fed through `feed_dict`."""
    if not context.state.building_graph:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    return get_default_graph().placeholder(dtype, shape, name)


def _default_value(value, name=None):
    return value


@tf_export(v1=["placeholder_with_default"], v2=["compat.v1.placeholder_with_default"])
def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    """`tf.placeholder_with_default`: `input` unless a value is fed (eager: `input`)."""
    value = ops.convert_to_tensor(input)
    if not context.state.building_graph:
        return value
    graph = get_default_graph()
    tensor = graph.record(_default_value, "PlaceholderWithDefault", (value,), {"name": name})
    tensor._static = TensorShape(shape)
    return tensor


class _Builder(object):
    """What the op decorator calls while a graph is being built (see framework/ops.py)."""

    @staticmethod
    def record(fn, op_type, args, kwargs):
        return get_default_graph().record(fn, op_type, args, kwargs)

    @staticmethod
    def convert(value, dtype, name, hint):
        graph = get_default_graph()
        tensor = graph._as_input(value)
        if tensor is None:
            try:
                return constant(value, dtype=dtype if dtype is not None else
                                (None if hint is None else dtypes.as_dtype(hint)),
                                name=name or "Const")
            except (TypeError, ValueError):
                if dtype is not None or hint is None:
                    raise
                return constant(value, name=name or "Const")
        if dtype is not None and tensor.dtype != dtype:
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (dtypes.as_dtype(dtype).name, tensor.dtype.name, tensor))
        return tensor

    @staticmethod
    def current_scope():
        return get_default_graph().current_scope()

    @staticmethod
    def control_dependencies_cleared():
        return get_default_graph().control_dependencies(None)

    @staticmethod
    def name_scope(name):
        return get_default_graph().name_scope(name)


ops.graph_builder = _Builder


@tf_export(v1=["GraphKeys"])
class GraphKeys(object):
    """TF1's standard collection names."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES
