"""tf.types and tf.function's trace cache: TraceTypes decide which calls share a trace
(TF 2.15's rules, as TF's tf.function guide shows them)."""
import collections
import gc

import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.core.function import trace_type
from tfcompat.framework import errors


@pytest.fixture(autouse=True)
def tf2_semantics():
    previous = _api.flavor()
    _api.set_flavor("v2")
    yield
    _api.set_flavor(previous)


class FruitTraceType(tf.types.experimental.TraceType):
    """The guide's TraceType: all fruits of one class share a trace."""

    def __init__(self, fruit):
        self.fruit_type = type(fruit)
        self.fruit_value = fruit

    def is_subtype_of(self, other):
        return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

    def most_specific_common_supertype(self, others):
        return self if all(self == other for other in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.fruit_value

    def __eq__(self, other):
        return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

    def __hash__(self):
        return hash(self.fruit_type)


class FruitWithTraceType:
    def __tf_tracing_type__(self, context):
        assert isinstance(context, tf.types.experimental.TraceType) is False
        return FruitTraceType(self)


class Apple(FruitWithTraceType):
    def __init__(self, flavor):
        self.flavor = tf.constant(flavor)


class Mango(FruitWithTraceType):
    def __init__(self, flavor):
        self.flavor = tf.constant(flavor)


def test_tf_tracing_type_equal_types_reuse_the_trace_traced_with_placeholder_value():
    traced_with = []

    @tf.function
    def mixed_flavor(fruit_a, fruit_b):
        traced_with.append((fruit_a, fruit_b))
        return fruit_a.flavor + fruit_b.flavor

    first = (Apple([1, 2]), Mango([3, 4]))
    assert mixed_flavor(*first).numpy().tolist() == [4, 6]
    # equal TraceTypes: the trace is reused, and it computes with the fruits it was traced
    # with (their flavors are captured constants), as in TF
    assert mixed_flavor(Apple([10, 20]), Mango([30, 40])).numpy().tolist() == [4, 6]
    assert mixed_flavor.experimental_get_tracing_count() == 1
    assert traced_with == [first]
    mixed_flavor(Mango([0, 1]), Apple([1, 0]))      # other classes: a new trace
    assert mixed_flavor.experimental_get_tracing_count() == 2


def test_other_objects_are_keyed_by_identity_while_they_live():
    class Fruit:
        flavor = tf.constant([1, 2])

    @tf.function
    def flavor(fruit):
        return fruit.flavor * 2

    kept = Fruit()
    flavor(kept)
    flavor(kept)
    assert flavor.experimental_get_tracing_count() == 1
    flavor(Fruit())
    flavor(Fruit())          # a new object each time: a new trace each time (the guide's Apple)
    assert flavor.experimental_get_tracing_count() == 3


def test_python_values_retrace_per_value_tensors_per_dtype_and_shape():
    traces = []

    @tf.function
    def f(x):
        traces.append(x)
        return x

    for value in (1, 1, 2, 1.0, True, "a", None, None):
        f(value)
    # 1, 1.0 and True are different Literals (their types differ)
    assert traces == [1, 2, 1.0, True, "a", None]
    f(tf.constant(1))
    f(tf.constant(2))
    f(np.array(3, np.int32))                 # numpy arrays are converted to tensors first
    f(tf.constant([1, 2]))
    f(tf.constant(1.5))
    assert [t.shape.as_list() for t in traces[6:]] == [[], [2], []]
    assert [t.name for t in traces[6:]] == ["x:0", "x:0", "x:0"]     # named after the parameter
    assert f.experimental_get_tracing_count() == 9


def test_reduce_retracing_generalizes_the_second_trace_to_unknown_dims():
    for option in ({"reduce_retracing": True}, {"experimental_relax_shapes": True}):
        traced_shapes = []

        @tf.function(**option)
        def g(x):
            traced_shapes.append(x.shape.as_list())
            return x

        for n in (3, 5, 7, 9):
            assert g(tf.range(n)).numpy().tolist() == list(range(n))
        assert traced_shapes == [[3], [None]]
        g(tf.constant([[1.0]]))               # another rank and dtype: traced as it is
        assert traced_shapes[-1] == [1, 1]


def test_input_signature_traces_once_and_rejects_what_does_not_fit():
    traces = []

    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
        traces.append(x.shape.as_list())
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    assert next_collatz(tf.constant([1, 2])).numpy().tolist() == [4, 1]
    assert next_collatz([5, 6, 7]).numpy().tolist() == [16, 3, 22]
    assert traces == [[None]]
    with pytest.raises(TypeError, match="Can not cast"):
        next_collatz(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="Can not cast"):
        next_collatz(tf.constant([1.0, 2.0]))
    assert next_collatz.get_concrete_function() is \
        next_collatz.get_concrete_function(tf.TensorSpec([None], tf.int32))

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def not_called(v):
        return v

    assert not_called.pretty_printed_concrete_signatures(verbose=False) == (
        "(v: TensorSpec(shape=(2,), dtype=tf.float32, name=None)) -> "
        "TensorSpec(shape=(2,), dtype=tf.float32, name=None)")


def test_concrete_function_calls_printing_and_function_type():
    @tf.function
    def double(a):
        return a + a

    assert double(tf.constant("a")).numpy() == b"aa"       # string results are tensors
    concrete = double.get_concrete_function(tf.constant("x"))
    assert double.get_concrete_function(tf.TensorSpec([], tf.string)) is concrete
    assert double.experimental_get_tracing_count() == 1
    assert concrete(tf.constant("b")).numpy() == b"bb"
    assert concrete(a=tf.constant("c")).numpy() == b"cc"
    spec = "TensorSpec(shape=(), dtype=tf.string, name=None)"
    assert str(concrete.function_type) == "(a: %s) -> %s" % (spec, spec)
    assert str(concrete) == ("ConcreteFunction Input Parameters:\n"
                             "  a (POSITIONAL_OR_KEYWORD): %s\nOutput Type:\n  %s\n"
                             "Captures:\n  None" % (spec, spec))
    with pytest.raises(errors.InvalidArgumentError, match="expected to be a string tensor"):
        concrete(tf.constant(1))
    assert isinstance(concrete, tf.types.experimental.ConcreteFunction)
    assert isinstance(concrete.inference_fn, tf.types.experimental.AtomicFunction)
    assert concrete.inference_fn(tf.constant("d")).numpy() == b"dd"
    assert isinstance(double, tf.types.experimental.GenericFunction)
    assert isinstance(double, tf.types.experimental.PolymorphicFunction)
    assert isinstance(double, tf.types.experimental.Callable)


def test_concrete_function_with_python_arguments_and_flat_calls():
    @tf.function
    def power(a, b):
        return a ** b

    square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert "  b (POSITIONAL_OR_KEYWORD): Literal[2]" in str(square)
    assert "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)" in str(square)
    assert float(square(tf.constant(10.0))) == 100.0         # the flat signature: just `a`
    assert float(square(tf.constant(3.0), 2)) == 9.0         # the traced arguments
    with pytest.raises(TypeError, match="Fallback to flat signature also failed"):
        square(tf.constant(10.0), b=3)

    class Model:
        weight, bias = 2.0, 0.0

    model = Model()
    evaluate = tf.function(lambda model, x: model.weight * x + model.bias)
    no_bias = evaluate.get_concrete_function(model, tf.constant(10.0))
    model.bias = 5.0
    assert float(no_bias(tf.constant(10.0))) == 20.0    # the model's state was traced in
    assert float(evaluate(model, tf.constant(10.0))) == 20.0     # same object: same trace


def test_variables_only_in_the_first_trace():
    @tf.function
    def makes_one_each_call(x):
        return tf.Variable(1.0) + x

    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        makes_one_each_call(1.0)

    class Count(tf.Module):
        def __init__(self):
            self.count = None
            self.traces = 0

        @tf.function
        def __call__(self):
            self.traces += 1
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    counter = Count()
    assert [int(counter()), int(counter())] == [1, 2]
    # the first trace created the variable, so the function was traced again, as in TF
    assert counter.traces == 2
    assert counter.__call__.experimental_get_tracing_count() == 2

    slots = {}

    @tf.function
    def train_step(optimizer_name, x):
        if optimizer_name not in slots:
            slots[optimizer_name] = tf.Variable(0.0)
        return slots[optimizer_name].assign_add(x)

    assert float(train_step("a", 1.0)) == 1.0
    with pytest.raises(ValueError, match="singleton"):
        train_step("b", 1.0)

    created_later = {}

    @tf.function
    def first_creates_none(name):
        if name != "first":
            created_later[name] = tf.Variable(1.0)
        return tf.constant(0.0)

    first_creates_none("first")
    with pytest.raises(ValueError, match="Creating variables on a non-first call"):
        first_creates_none("second")


def test_python_side_effects_happen_while_tracing_only():
    external_list = []

    @tf.function
    def side_effect(x):
        external_list.append(x)

    for _ in range(3):
        side_effect(1)
    assert external_list == [1]

    iterator = iter([1, 2, 3])

    @tf.function
    def consume_next(iterator):
        return tf.constant(next(iterator))

    # a Python iterator is one (hashable) argument: the trace, with its first value, is reused
    assert [int(consume_next(iterator)) for _ in range(3)] == [1, 1, 1]


def test_a_tf_data_iterator_argument_gives_its_next_element_on_each_call():
    iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))

    @tf.function
    def consume_next(iterator):
        return next(iterator) * 10

    assert [int(consume_next(iterator)) for _ in range(3)] == [10, 20, 30]
    assert consume_next.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.OutOfRangeError):
        consume_next(iterator)


def test_py_function_as_a_decorator():
    calls = []

    @tf.py_function(Tout=tf.float32)
    def py_plus(x, y):
        calls.append("eager")
        return x + y

    @tf.function
    def wrapper(x, y):
        return py_plus(x, y)

    assert float(wrapper(tf.constant(1.0), tf.constant(2.0))) == 3.0
    assert float(wrapper(tf.constant(1.0), tf.constant(5.0))) == 6.0
    assert calls == ["eager", "eager"]       # the Python function runs on each call
    double = tf.numpy_function(Tout=tf.int64)(lambda x: x * 2)
    assert int(double(tf.constant(4, tf.int64))) == 8


def test_default_trace_types():
    spec_3, spec_5 = tf.TensorSpec([3], tf.int32), tf.TensorSpec([5], tf.int32)
    relaxed = spec_3.most_specific_common_supertype([spec_5])
    assert relaxed == tf.TensorSpec([None], tf.int32)
    assert spec_3.is_subtype_of(relaxed) and not relaxed.is_subtype_of(spec_3)
    assert spec_3.is_subtype_of(tf.TensorSpec(None, tf.int32))
    assert not spec_3.is_subtype_of(tf.TensorSpec([3], tf.float32))
    assert spec_3.most_specific_common_supertype([tf.TensorSpec([1, 2], tf.int32)]) == \
        tf.TensorSpec(None, tf.int32)
    assert spec_3.most_specific_common_supertype([tf.TensorSpec([3], tf.float32)]) is None

    Point = collections.namedtuple("Point", "x y")
    value = {"b": [tf.constant([1, 2, 3]), 1], "a": Point(tf.constant(1.0), "s")}
    value_type = trace_type.from_value(value)
    assert value_type == trace_type.from_value(
        {"a": Point(tf.constant(2.0), "s"), "b": [tf.constant([4, 5, 6]), 1]})
    other = trace_type.from_value({"b": [tf.constant([1, 2]), 1], "a": Point(tf.constant(1.0),
                                                                              "s")})
    common = value_type.most_specific_common_supertype([other])
    assert value_type.is_subtype_of(common) and other.is_subtype_of(common)
    assert common.mapping["b"].components[0] == tf.TensorSpec([None], tf.int32)
    assert value_type.most_specific_common_supertype(
        [trace_type.from_value({"b": [tf.constant([1]), 2], "a": Point(1.0, "s")})]) is None
    assert repr(trace_type.from_value((1, "a"))) == "Tuple[Literal[1], Literal['a']]"

    class Thing:
        pass

    thing = Thing()
    thing_type = trace_type.from_value(thing)
    assert thing_type == trace_type.from_value(thing)
    assert thing_type != trace_type.from_value(Thing())
    del thing
    gc.collect()
    assert thing_type != thing_type      # a dead object's type matches nothing
    with pytest.raises(TypeError, match="Could not generate a generic TraceType"):
        trace_type.from_value(bytearray(b"x"))    # neither weakly referable nor hashable


def test_tf_types_namespace():
    with pytest.raises(TypeError):
        tf.types.experimental.TraceType()
    assert tf.types.experimental.GenericFunction is tf.types.experimental.PolymorphicFunction
    assert issubclass(tf.TensorSpec, tf.types.experimental.TraceType)
    assert isinstance(FruitWithTraceType(), tf.types.experimental.SupportsTracingProtocol)
    assert not isinstance(object(), tf.types.experimental.SupportsTracingProtocol)
    assert isinstance(tf.types.experimental.FunctionType([]), tf.types.experimental.FunctionType)
