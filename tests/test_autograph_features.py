"""AutoGraph's optional features (tf.autograph.experimental.Feature), builtins on tensors,
set_loop_options and tf.TensorArray, as TF's r1 AutoGraph guide uses them."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat import _api

Feature = tf.autograph.experimental.Feature


@pytest.fixture(autouse=True)
def tf2_semantics():
    previous = _api.flavor()
    _api.set_flavor("v2")
    yield
    _api.set_flavor(previous)


def run_in_graph(build):
    """`build()`'s result evaluated in a TF1 graph and Session."""
    with tf.Graph().as_default():
        fetches = build()
        with tf.compat.v1.Session() as sess:
            return sess.run(fetches)


def test_feature_members_all_and_all_but():
    assert [f.name for f in Feature] == ["ALL", "AUTO_CONTROL_DEPS", "ASSERT_STATEMENTS",
                                         "BUILTIN_FUNCTIONS", "EQUALITY_OPERATORS", "LISTS",
                                         "NAME_SCOPES"]
    assert Feature.LISTS.value == "LISTS"
    assert len(Feature.all()) == 7
    assert set(Feature.all_but(Feature.LISTS)) == set(Feature) - {Feature.ALL, Feature.LISTS}
    assert set(Feature.all_but([Feature.LISTS, Feature.NAME_SCOPES])) == \
        set(Feature) - {Feature.ALL, Feature.LISTS, Feature.NAME_SCOPES}


def make_inverse(options):
    @tf.function(experimental_autograph_options=options)
    def inverse(x):
        assert x != 0.0, "Do not pass zero!"
        return 1.0 / x
    return inverse


def test_assert_statements_become_tf_assert_in_a_tf1_graph():
    inverse = make_inverse((Feature.ASSERT_STATEMENTS, Feature.EQUALITY_OPERATORS))
    assert run_in_graph(lambda: inverse(tf.constant(4.0))) == 0.25
    with pytest.raises(tf.errors.InvalidArgumentError) as error:
        run_in_graph(lambda: inverse(tf.constant(0.0)))
    assert "assertion failed: [Do not pass zero!]" in error.value.message


def test_assert_statements_in_an_eager_call_and_off_by_default():
    inverse = make_inverse(Feature.ASSERT_STATEMENTS)
    assert float(inverse(tf.constant(2.0))) == 0.5
    with pytest.raises(tf.errors.InvalidArgumentError, match="Do not pass zero!"):
        inverse(tf.constant(0.0))
    with pytest.raises(TypeError, match="Python `bool`"):  # TF: assert is left as it is
        make_inverse(None)(tf.constant(0.0))


def test_assert_without_message_and_on_python_values():
    @tf.function(experimental_autograph_options=Feature.ALL)
    def positive(x, limit):
        assert limit > 0
        assert x > 0
        return x

    assert int(positive(tf.constant(3), 1)) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Assertion error\]"):
        positive(tf.constant(-3), 1)
    with pytest.raises(AssertionError):
        positive(tf.constant(3), 0)


def test_builtin_print_prints_values_each_iteration(capsys):
    @tf.function(experimental_autograph_options=Feature.BUILTIN_FUNCTIONS)
    def count(n):
        i = 0
        while i < n:
            print("i is", i)
            i += 1
        return n

    run_in_graph(lambda: count(tf.constant(3)))
    assert capsys.readouterr().out == "i is 0\ni is 1\ni is 2\n"
    count(tf.constant(2))
    assert capsys.readouterr().out == "i is 0\ni is 1\n"


def test_print_without_the_feature_prints_once_while_tracing(capsys):
    @tf.function
    def show(x):
        print("tracing", x.shape)
        return x + 1

    show(tf.constant([1, 2]))
    show(tf.constant([3, 4]))
    assert capsys.readouterr().out == "tracing (2,)\n"


def test_len_range_int_float_of_tensors():
    @tf.function
    def builtins(x, n):
        total = 0
        for i in range(n):
            total += i
        return len(x), total, int(x[0] * 2.5), float(n)

    length, total, as_int, as_float = builtins(tf.constant([1.5, 2.0, 3.0]), tf.constant(5))
    assert int(length) == 3 and isinstance(length, tf.Tensor)   # outputs are tensors in TF
    assert int(total) == 10
    assert as_int.dtype == tf.int32 and int(as_int) == 3
    assert as_float.dtype == tf.float32 and float(as_float) == 5.0


def test_range_of_tensors_is_empty_when_stop_is_below_start():
    @tf.function
    def count(start, stop):
        n = 0
        for _ in range(start, stop):
            n += 1
        return n

    assert int(count(tf.constant(2), tf.constant(6))) == 4
    assert int(count(tf.constant(6), tf.constant(2))) == 0


def test_len_of_a_scalar_tensor_raises():
    @tf.function
    def length(x):
        return len(x)

    with pytest.raises(ValueError, match="len requires a non-scalar tensor"):
        length(tf.constant(1.0))


def test_lists_append_to_tensor_array_in_tf_range_loop():
    @tf.function(experimental_autograph_options=Feature.LISTS)
    def arange(n):
        z = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(n):
            z.append(i)
        return z.stack()

    np.testing.assert_array_equal(run_in_graph(lambda: arange(tf.constant(5))),
                                  [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(arange(tf.constant(3)).numpy(), [0, 1, 2])


def test_lists_append_over_tensor_elements_and_python_lists():
    @tf.function(experimental_autograph_options=Feature.LISTS)
    def squares(nums):
        result = tf.TensorArray(tf.int64, size=0, dynamic_size=True)
        plain = []
        for num in nums:
            result.append(num * num)
            plain.append(num)
        return result.stack(), tf.stack(plain)

    stacked, plain = run_in_graph(lambda: squares(tf.constant(np.arange(4))))
    np.testing.assert_array_equal(stacked, [0, 1, 4, 9])
    np.testing.assert_array_equal(plain, [0, 1, 2, 3])


def test_equality_operators_compare_tensors_and_python_values():
    @tf.function(experimental_autograph_options=Feature.EQUALITY_OPERATORS)
    def fizzbuzz(i, n):
        while i < n:
            msg = ""
            if i % 3 == 0:
                msg += "Fizz"
            if i % 5 == 0:
                msg += "Buzz"
            if msg == "":
                msg = tf.as_string(i)
            tf.print(msg)
            i += 1
        return i, 1 == 1, 0 == 1 < 2

    final, python_true, chained = fizzbuzz(tf.constant(10), tf.constant(16))
    assert int(final) == 16
    assert bool(python_true) is True and bool(chained) is False  # returned as tensors
    code = tf.autograph.to_code(fizzbuzz.python_function,
                                experimental_optional_features=Feature.EQUALITY_OPERATORS)
    assert "ag__.eq(msg, '')" in code


def test_tensor_not_and_or_in_to_graph_functions():
    def pick(x, flag):
        if not flag and x > 0:
            return x
        return -x

    converted = tf.autograph.to_graph(pick)
    assert run_in_graph(lambda: converted(tf.constant(3), tf.constant(False))) == 3
    assert run_in_graph(lambda: converted(tf.constant(3), tf.constant(True))) == -3


def test_loop_local_variables_need_no_value_before_the_loop():
    @tf.function
    def triple_sum(n):
        i, total = 0, 0
        while i < n:
            step = i * 3
            total += step
            i += 1
        return total

    assert int(triple_sum(tf.constant(4))) == 18


def test_set_loop_options_maximum_iterations_and_shape_invariants():
    @tf.function
    def grow(x, limit):
        values = tf.zeros([0])
        while x < limit:
            tf.autograph.experimental.set_loop_options(
                maximum_iterations=3,
                shape_invariants=[(values, tf.TensorShape([None]))])
            x = x * 2
            values = tf.concat([values, [tf.cast(x, tf.float32)]], 0)
        return x, values

    x, values = grow(tf.constant(1), tf.constant(100))
    assert int(x) == 8
    np.testing.assert_array_equal(values.numpy(), [2.0, 4.0, 8.0])


def test_auto_control_deps_run_a_to_graph_functions_side_effects(capsys):
    def update(v):
        v.assign_add(1.0)
        tf.print("updated")
        return tf.constant(0)

    converted = tf.autograph.to_graph(
        update, experimental_optional_features=Feature.AUTO_CONTROL_DEPS)
    with tf.Graph().as_default():
        v = tf.compat.v1.Variable(1.0)
        result = converted(v)
        with tf.compat.v1.Session() as sess:
            sess.run(v.initializer)
            sess.run(result)
            sess.run(result)
            assert sess.run(v) == 3.0


def test_name_scopes_name_ops_after_the_function():
    def scaled(x):
        return tf.multiply(x, 2.0, name="times")

    converted = tf.autograph.to_graph(scaled, experimental_optional_features=Feature.NAME_SCOPES)
    with tf.Graph().as_default():
        assert converted(tf.constant(1.0)).name == "scaled/times:0"


# ---------------------------------------------------------------- tf.TensorArray


def test_tensor_array_eager_write_read_stack_size():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in range(3):
        ta = ta.write(i, [float(i), float(i) * 2])
    np.testing.assert_array_equal(ta.stack().numpy(), [[0, 0], [1, 2], [2, 4]])
    np.testing.assert_array_equal(ta.read(1).numpy(), [1, 2])
    assert int(ta.size()) == 3
    np.testing.assert_array_equal(ta.concat().numpy(), [0, 0, 1, 2, 2, 4])
    np.testing.assert_array_equal(ta.gather([2, 0]).numpy(), [[2, 4], [0, 0]])
    unstacked = tf.TensorArray(tf.int32, size=2).unstack([[1, 2], [3, 4]])
    np.testing.assert_array_equal(unstacked.read(1).numpy(), [3, 4])
    assert ta.element_shape.as_list() == [2]


def test_tensor_array_errors():
    fixed = tf.TensorArray(tf.int32, size=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="array is not resizeable"):
        fixed.write(2, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray dtype is int32"):
        fixed.write(0, 1.5)
    shaped = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        shaped.write(1, [1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tried to read from index 4"):
        shaped.read(4)


def test_tensor_array_in_a_graph_and_a_while_loop():
    def build():
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ones = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=())

        def body(i, ta, ones):
            return i + 1, ta.write(i, tf.fill([2], tf.cast(i, tf.float32))), ones.write(i, 1)
        _, ta, ones = tf.while_loop(lambda i, *_: i < 3, body, [tf.constant(0), ta, ones])
        assert ta.stack().shape.as_list() == [None, 2]
        return ta.stack(), ones.stack(), ta.size(), ta.read(2)

    stacked, ones, size, last = run_in_graph(build)
    np.testing.assert_array_equal(stacked, [[0, 0], [1, 1], [2, 2]])
    np.testing.assert_array_equal(ones, [1, 1, 1])
    assert size == 3
    np.testing.assert_array_equal(last, [2, 2])


def test_tensor_array_of_a_placeholder_size_in_a_graph():
    with tf.Graph().as_default():
        n = tf.compat.v1.placeholder(tf.int32, [])
        ta = tf.TensorArray(tf.float32, size=n).write(0, [1.0, 2.0])
        with tf.compat.v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(ta.stack(), {n: 2}), [[1, 2], [0, 0]])


# ---------------------------------------------------------------- for loops over datasets


def test_for_over_a_dataset_in_a_graph_with_break_restarts_each_run(capsys):
    def total_until(dataset, limit):
        total = tf.constant(0, tf.int64)
        seen = tf.TensorArray(tf.int64, size=0, dynamic_size=True)
        for x, y in dataset:
            total += x * y
            seen.append(x)
            if total >= limit:
                print("stopping at", x)
                break
        return total, seen.stack()

    converted = tf.autograph.to_graph(
        total_until, experimental_optional_features=Feature.all())
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.zip((tf.data.Dataset.range(1, 100).repeat(),
                                       tf.data.Dataset.range(2, 100)))
        total, seen = converted(dataset, tf.constant(20, tf.int64))
        with tf.compat.v1.Session() as sess:
            for _ in range(2):
                result_total, result_seen = sess.run([total, seen])
                assert result_total == 1 * 2 + 2 * 3 + 3 * 4
                np.testing.assert_array_equal(result_seen, [1, 2, 3])
    assert capsys.readouterr().out == "stopping at 3\nstopping at 3\n"


def test_for_over_a_finite_dataset_in_a_graph_runs_every_element():
    @tf.function
    def total(dataset):
        result = tf.constant(0, tf.int64)
        for x in dataset:
            result += x
        return result

    assert run_in_graph(lambda: total(tf.data.Dataset.range(5))) == 10


def test_for_over_a_python_list_with_a_tensor_break_guards_later_steps():
    @tf.function
    def first_steps(limit):
        total = 0
        for step in [1, 2, 3, 4]:
            total += step
            if total >= limit:
                break
        return total

    assert int(first_steps(tf.constant(3))) == 3
    assert int(first_steps(tf.constant(100))) == 10


def test_iterator_get_next_inside_a_while_loop_takes_an_element_each_iteration():
    with tf.Graph().as_default():
        iterator = tf.compat.v1.data.make_initializable_iterator(tf.data.Dataset.range(10))
        _, total = tf.while_loop(lambda i, t: i < 4,
                                 lambda i, t: (i + 1, t + iterator.get_next()),
                                 [tf.constant(0), tf.constant(0, tf.int64)])
        with tf.compat.v1.Session() as sess:
            sess.run(iterator.initializer)
            assert sess.run(total) == 0 + 1 + 2 + 3
            assert sess.run(total) == 4 + 5 + 6 + 7


def test_auto_control_deps_leave_a_keras_models_graph_alone():
    def predict(x):
        model = tf.keras.Sequential([tf.keras.layers.Dense(
            1, input_shape=(2,), kernel_initializer="ones", bias_initializer="zeros")])
        model.build()
        return model(x)

    converted = tf.autograph.to_graph(
        predict, experimental_optional_features=Feature.AUTO_CONTROL_DEPS)
    with tf.Graph().as_default():
        output = converted(tf.constant([[1.0, 2.0]]))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_allclose(sess.run(output), [[3.0]])


def test_for_loop_over_a_dataset_of_unknown_size_in_a_function():
    """TF's AutoGraph reduces over a dataset whose size is unknown (from_generator)."""
    @tf.function
    def total(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)
        return loss

    @tf.function
    def until_big(dataset):
        acc = tf.constant(0)
        for x in dataset:
            if x > 2:
                break
            acc += x
        return acc

    pairs = tf.data.Dataset.from_generator(lambda: [(1, 3), (2, 7)], (tf.int32, tf.int32))
    assert int(total(pairs)) == 7
    assert int(until_big(tf.data.Dataset.from_generator(lambda: [1, 2, 3, 4], tf.int32))) == 3


_TRACED_ONCE = None


def test_global_and_nonlocal_names_assigned_under_if_reach_their_scopes():
    """TF's guide/random_numbers: `global g; if g is None: g = ...` inside a tf.function
    assigns the module's g (it is no state of the converted `if`)."""
    @tf.function
    def make(x):
        global _TRACED_ONCE
        if _TRACED_ONCE is None:
            _TRACED_ONCE = 10
        return x + _TRACED_ONCE

    assert int(make(tf.constant(1))) == 11
    assert _TRACED_ONCE == 10
    count = 0

    @tf.function
    def counted(x):
        nonlocal count
        for _ in range(2):
            count += 1
        return x * count

    assert int(counted(tf.constant(3))) == 6 and count == 2
