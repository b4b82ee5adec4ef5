"""tf.function / defun: one trace per signature, AutoGraph for tensor if/while."""
import itertools

import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api
from tfcompat.autograph import converter


@pytest.fixture(autouse=True)
def tf2_semantics():
    """tf.function scripts are TF2 code: tensor == and != compare values."""
    previous = _api.flavor()
    _api.set_flavor("v2")
    yield
    _api.set_flavor(previous)


def test_traces_once_per_signature_and_runs_data_dependent_while():
    traces = []

    @tf.function
    def collatz(n):
        traces.append(1)
        steps = tf.constant(0)
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    assert int(collatz(tf.constant(27))) == 111
    assert int(collatz(tf.constant(97))) == 118
    assert len(traces) == 1
    collatz(tf.constant([5])[0] * 1)
    assert len(traces) == 1
    collatz(tf.constant(5, dtype=tf.int64))
    assert len(traces) == 2


def test_tensor_if_becomes_cond():
    @tf.function
    def square_if_positive(x):
        if tf.reduce_sum(x) > 0:
            x = x * x
        else:
            x = tf.zeros_like(x)
        return x

    np.testing.assert_allclose(square_if_positive(tf.constant([2.0, 3.0])).numpy(), [4.0, 9.0])
    np.testing.assert_allclose(square_if_positive(tf.constant([-2.0, 1.0])).numpy(), [0.0, 0.0])
    assert square_if_positive.experimental_get_tracing_count() == 1


def test_python_values_retrace_and_python_if_stays_python():
    @tf.function
    def scale(x, factor):
        if factor > 2:
            return x * factor
        return x

    assert float(scale(tf.constant(1.0), 3)) == 3.0
    assert float(scale(tf.constant(1.0), 1)) == 1.0
    assert scale.experimental_get_tracing_count() == 2


def test_variables_are_updated_in_place_and_outputs_keep_structure():
    v = tf.Variable(1.0)

    @tf.function
    def bump(delta):
        v.assign_add(delta)
        return {"value": v.read_value(), "twice": [delta * 2]}

    out = bump(tf.constant(2.0))
    assert float(v.numpy()) == 3.0
    assert float(out["value"]) == 3.0 and float(out["twice"][0]) == 4.0
    bump(tf.constant(1.0))
    assert float(v.numpy()) == 4.0


def test_gradient_flows_through_function_call():
    w = tf.Variable([1.0, 2.0])

    @tf.function
    def loss(x):
        return tf.reduce_sum(w * x)

    with tf.GradientTape() as tape:
        value = loss(tf.constant([3.0, 4.0]))
    np.testing.assert_allclose(tape.gradient(value, w).numpy(), [3.0, 4.0])
    assert float(value) == 11.0


def test_results_carry_autograd_history_only_where_a_tape_records():
    """Outside any GradientTape a call returns plain values (from a module of its own, which
    frees its autograd graph as it goes), even from a function that takes gradients inside;
    under a tape, before or after such calls, gradients flow through the results to
    variables and watched inputs."""
    w = tf.Variable(2.0)

    @tf.function
    def step(x):
        with tf.GradientTape() as inner:
            loss = x * w
        return loss, inner.gradient(loss, w)

    for _ in range(2):
        x = tf.constant(3.0)
        loss, grad = step(x)
        assert float(loss) == 6.0 and float(grad) == 3.0
        assert not tf.convert_to_tensor(loss)._t.requires_grad
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            loss, _ = step(x)
        assert float(tape.gradient(loss, w)) == 3.0
        assert float(tape.gradient(loss, x)) == 2.0
    assert step.experimental_get_tracing_count() == 1


def test_a_returned_variable_is_its_value_at_the_call():
    """`return v` (or its conversion) gives the value the variable had, as TF's function
    returns a read of it; the variable's own storage would follow later assignments."""
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def outputs():
        return v, tf.convert_to_tensor(v), {"value": v.value()}

    first = outputs()
    with tf.GradientTape() as tape:
        second = outputs()
        total = tf.reduce_sum(second[0] + second[1])
    np.testing.assert_array_equal(tape.gradient(total, v).numpy(), [2.0, 2.0])
    v.assign([5.0, 6.0])
    v.assign_add([1.0, 1.0])
    for result in (first, second):
        for value in (result[0], result[1], result[2]["value"]):
            np.testing.assert_array_equal(value.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(outputs()[0].numpy(), [6.0, 7.0])


def test_defun_on_bound_method_and_executing_eagerly_inside():
    seen = []

    class Model(object):
        def __init__(self):
            self.w = tf.Variable(2.0)

        def call(self, x):
            seen.append(tf.executing_eagerly())
            return x * self.w

    model = Model()
    model.call = tf.contrib.eager.defun(model.call)
    assert float(model.call(tf.constant(3.0))) == 6.0
    assert seen == [False]


def test_converter_leaves_return_inside_if_alone():
    def f(x):
        if x > 0:
            return 1
        return 2
    converted = converter.convert(f)
    assert converted(1) == 1 and converted(-1) == 2


def test_tensor_if_with_returns_in_both_branches_becomes_cond():
    # tensorflow/docs guide/intro_to_graphs.ipynb: TF's AutoGraph makes this one tf.cond.
    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    tf_simple_relu = tf.function(simple_relu)
    assert int(tf_simple_relu(tf.constant(1))) == 1
    assert int(tf_simple_relu(tf.constant(-1))) == 0
    assert tf_simple_relu.experimental_get_tracing_count() == 1


def test_early_returns_through_elif_and_a_final_return_become_one_cond():
    @tf.function
    def signed_double(x):
        doubled = x * 2
        if x > 0:
            shifted = doubled + 1
            return shifted
        elif x < 0:
            return -doubled
        return tf.zeros_like(x)

    values = [float(signed_double(tf.constant(v))) for v in (3.0, -3.0, 0.0)]
    assert values == [7.0, 6.0, 0.0]
    assert signed_double.experimental_get_tracing_count() == 1


def test_autograph_to_code_shows_the_converted_source():
    # guide/intro_to_graphs and the r1 autograph guide print tf.autograph.to_code(f).
    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        return 0

    def plain(x):
        return x + 1

    code = tf.autograph.to_code(simple_relu)
    assert code.startswith("def simple_relu(x):") and "ag__.if_return(tf.greater(x, 0)" in code
    assert tf.autograph.to_code(plain) == "def plain(x):\n    return x + 1\n"
    assert tf.compat.v1.autograph.to_code is tf.autograph.to_code
    with pytest.raises(ValueError, match="source code"):
        tf.autograph.to_code(len)


def test_symbolic_bool_error_names_the_fix():
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="bool"):
        f(tf.constant(1.0))


def test_variable_created_in_the_first_trace_from_a_computed_tensor_is_lifted():
    """TF's guide (Intro to modules): a module whose tf.function __call__ builds its
    variables on first use from tf.random.normal / tf.zeros computed in the trace."""
    class Dense(tf.Module):
        def __init__(self, units):
            super().__init__()
            self.units, self.w = units, None

        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(tf.random.normal([x.shape[-1], self.units]), name="w")
                self.b = tf.Variable(tf.zeros([self.units]) + 1.0, name="b")
            return tf.matmul(x, self.w) + self.b

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.first, self.second = Dense(3), Dense(2)

        @tf.function
        def __call__(self, x):
            return self.second(self.first(x))

    model = Model()
    x = tf.constant([[2.0, 2.0, 2.0]])
    out = model(x)
    w1, w2 = model.first.w.numpy(), model.second.w.numpy()
    np.testing.assert_allclose(out.numpy(), (x.numpy() @ w1 + 1.0) @ w2 + 1.0,
                               rtol=1e-5, atol=1e-5)
    assert [v.shape.as_list() for v in model.variables] == [[3], [3, 3], [2], [3, 2]]
    np.testing.assert_allclose(model(x).numpy(), out.numpy())  # no new variables


def test_variable_initialized_from_a_function_input_is_refused():
    @tf.function
    def f(x):
        return tf.Variable(x * 2.0).read_value()

    with pytest.raises(ValueError, match="depends on the function's inputs"):
        f(tf.constant(1.0))


def test_pretty_printed_concrete_signatures_in_tfs_format():
    # Text from TF 2.21 for the same traces (tensorflow/docs guide/function, intro_to_graphs).
    @tf.function
    def my_relu(x):
        return tf.maximum(0., x)

    my_relu(tf.constant(5.5))
    my_relu([1, -1])
    assert my_relu.pretty_printed_concrete_signatures() == (
        "Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Output Type:\n  TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "Captures:\n  None\n\n"
        "Input Parameters:\n  x (POSITIONAL_OR_KEYWORD): List[Literal[1], Literal[-1]]\n"
        "Output Type:\n  TensorSpec(shape=(2,), dtype=tf.float32, name=None)\n"
        "Captures:\n  None")
    assert my_relu.pretty_printed_concrete_signatures(verbose=False).splitlines()[1] == \
        "(x: List[Literal[1], Literal[-1]]) -> TensorSpec(shape=(2,), dtype=tf.float32, name=None)"

    @tf.function
    def structured(a, b=2, *, c=None):
        return {"s": a + b, "p": (a, a)}

    text = structured.get_concrete_function(tf.constant(1), 3).pretty_printed_signature()
    assert text.splitlines()[1:5] == [
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)",
        "  b (POSITIONAL_OR_KEYWORD): Literal[3]", "  c (KEYWORD_ONLY): Literal[None]",
        "Output Type:"]
    assert text.splitlines()[5] == (
        "  Dict[['s', TensorSpec(shape=(), dtype=tf.int32, name=None)], ['p', Tuple["
        "TensorSpec(shape=(), dtype=tf.int32, name=None), "
        "TensorSpec(shape=(), dtype=tf.int32, name=None)]]]")

    scale = tf.Variable(2.0)

    @tf.function
    def scaled(x):
        return x * scale

    scaled(tf.constant(1.0))
    captures = scaled.pretty_printed_concrete_signatures().split("Captures:\n")[1]
    assert captures.endswith(": TensorSpec(shape=(), dtype=tf.resource, name=None)")


def test_for_over_tf_range_with_a_tensor_bound_becomes_one_while_loop():
    # tensorflow/docs guide/function.ipynb: `for _ in tf.range(num_steps)` in a tf.function.
    @tf.function
    def sum_of_squares(n):
        total = tf.constant(0)
        for i in tf.range(1, n + 1):
            total += i * i
        return total

    assert int(sum_of_squares(tf.constant(4))) == 30
    assert int(sum_of_squares(tf.constant(0))) == 0
    assert sum_of_squares.experimental_get_tracing_count() == 1

    @tf.function
    def countdown(n):
        total = tf.constant(0)
        for i in tf.range(n, 0, -2):
            total += i
        return total

    assert int(countdown(tf.constant(7))) == 16

    @tf.function
    def constant_bound(x):
        for i in tf.range(3):
            x = x + tf.cast(i, tf.float32)
        return x

    assert float(constant_bound(tf.constant(1.0))) == 4.0
    side_effects = []

    def python_range(n):
        for i in range(n):
            side_effects.append(i)
        return i

    assert converter.convert(python_range)(3) == 2 and side_effects == [0, 1, 2]


def test_continue_under_a_tensor_if_becomes_a_flag():
    # The r1 AutoGraph guide's sum_even, through tf.function and tf.autograph.to_graph.
    def sum_even(items):
        s = 0
        for c in items:
            if c % 2 > 0:
                continue
            s += c
        return s

    items = tf.constant([10, 12, 15, 20])
    assert int(tf.function(sum_even)(items)) == 42
    assert int(tf.autograph.to_graph(sum_even)(items)) == 42
    assert tf.autograph.to_graph(sum_even)([1, 2, 3, 4]) == 6
    with tf.Graph().as_default():
        total = tf.autograph.to_graph(sum_even)(tf.constant([10, 12, 15, 20]))
        with tf.compat.v1.Session() as sess:
            assert sess.run(total) == 42

    @tf.function
    def sum_even_indices(n):
        total = tf.constant(0)
        for i in tf.range(n):
            if i % 2 > 0:
                continue
            total += i
        return total

    assert int(sum_even_indices(tf.constant(7))) == 12


def test_break_under_a_tensor_if_in_for_and_while_loops():
    @tf.function
    def sum_until_large(values):
        total = tf.constant(0)
        for value in values:
            if value > 10:
                break
            total += value
        return total

    assert int(sum_until_large(tf.constant([1, 2, 30, 4]))) == 3
    assert int(sum_until_large(tf.constant([1, 2, 3, 4]))) == 10

    @tf.function
    def count_until(n, limit):
        i = tf.constant(0)
        total = tf.constant(0)
        while i < n:
            if total > limit:
                break
            total += i
            i += 1
        return total, i

    total, steps = count_until(tf.constant(100), tf.constant(10))
    assert (int(total), int(steps)) == (15, 6)
    total, steps = count_until(tf.constant(3), tf.constant(10))
    assert (int(total), int(steps)) == (3, 3)

    @tf.function
    def first_power_of_two_above(x):
        power = tf.constant(1)
        while True:
            if power > x:
                break
            power *= 2
        return power

    assert int(first_power_of_two_above(tf.constant(37))) == 64

    def first_multiple(n, k):
        found = -1
        for i in tf.range(1, n):
            if i % k == 0:
                found = i
                break
        return found, i

    for run in (tf.function(first_multiple), tf.autograph.to_graph(first_multiple)):
        assert [int(v) for v in run(tf.constant(20), tf.constant(7))] == [7, 7]
        assert [int(v) for v in run(tf.constant(5), tf.constant(7))] == [-1, 4]
    assert [int(v) for v in tf.autograph.to_graph(first_multiple)(20, 7)] == [7, 7]

    @tf.function
    def python_loop_under_tensor_if(x, flag):
        i = 0
        if flag > 0:
            for i in range(5):
                if i == 2:
                    break
                x += 1
        return x

    assert int(python_loop_under_tensor_if(tf.constant(0), tf.constant(1))) == 2
    assert int(python_loop_under_tensor_if(tf.constant(0), tf.constant(0))) == 0


def test_python_loops_with_continue_break_and_else_keep_python_semantics():
    def pick(xs):
        out = []
        for x in xs:
            if x == 2:
                continue
            if x == 4:
                break
            out.append(x)
        else:
            out.append("no break")
        return out

    converted = converter.convert(pick)
    assert converted([1, 2, 3, 4, 5]) == [1, 3]
    assert converted([1, 2, 3]) == [1, 3, "no break"]
    pulled = []

    def first_over_three(numbers):
        for i in numbers:
            pulled.append(i)
            if i > 3:
                break
        return i

    assert converter.convert(first_over_three)(itertools.count()) == 4
    assert pulled == [0, 1, 2, 3, 4]

    def countdown(n):
        steps = []
        while n > 0:
            n -= 1
            if n % 2:
                continue
            steps.append(n)
        return steps

    assert converter.convert(countdown)(5) == [4, 2, 0]


def test_outputs_are_tensors_and_leaked_tensors_are_out_of_scope():
    @tf.function
    def outputs(x):
        return None, 1 + 1, [x * 2.0, 3.5]

    nothing, two, (doubled, constant) = outputs(tf.constant(1.5))
    assert nothing is None          # None stays None; Python numbers become tensors, as in TF
    assert two.dtype == tf.int32 and int(two) == 2
    assert float(doubled) == 3.0 and constant.dtype == tf.float32

    @tf.function
    def returns_an_object():
        return object()

    with pytest.raises(TypeError, match="must return zero or more Tensors"):
        returns_an_object()

    leaked = []

    @tf.function
    def leaky(a):
        leaked.append(a + 1)
        return a + 2

    assert int(leaky(tf.constant(1))) == 3

    @tf.function
    def uses_leaked(b):
        return b + leaked[0]

    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        uses_leaked(tf.constant(2))
