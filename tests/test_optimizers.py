"""TF1 optimizers: three steps of each against TF's update formulas computed in numpy, eager
(GradientTape + apply_gradients) and graph mode (minimize + Session); slots, global step,
None gradients, learning rates given as tensors, variables and callables."""
import numpy as np
import pytest

import tfcompat as tf
from tfcompat.train import update_rules

X0 = [np.array([1.0, -2.0, 0.5], np.float32), np.array([[0.3, -0.1], [2.0, -1.5]], np.float32)]
C = [np.array([0.5, 0.2, -1.0], np.float32), np.array([[-0.4, 0.1], [0.3, 0.25]], np.float32)]


def loss_of(variables):
    """0.5 * sum(x^2) + sum(c * x): the gradient is x + c."""
    total = 0.0
    for v, c in zip(variables, C):
        total = total + tf.reduce_sum(0.5 * tf.square(v) + tf.constant(c) * v)
    return total


# ---------------------------------------------------------------- numpy references


def ref_sgd(lr):
    def step(x, g, s, t):
        return x - lr * g
    return step


def ref_momentum(lr, m, nesterov=False):
    def step(x, g, s, t):
        s["a"] = m * s.get("a", 0.0) + g
        return x - (lr * g + lr * m * s["a"] if nesterov else lr * s["a"])
    return step


def ref_adam(lr=0.001, b1=0.9, b2=0.999, eps=1e-8):
    def step(x, g, s, t):
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        return x - lr_t * s["m"] / (np.sqrt(s["v"]) + eps)
    return step


def ref_adagrad(lr, init=0.1):
    def step(x, g, s, t):
        s["a"] = s.get("a", init) + g * g
        return x - lr * g / np.sqrt(s["a"])
    return step


def ref_adagrad_da(lr, l1=0.0, l2=0.0, init=0.1):
    def step(x, g, s, t):
        s["g"] = s.get("g", 0.0) + g
        s["gg"] = s.get("gg", init) + g * g
        shrunk = np.sign(s["g"]) * np.maximum(np.abs(s["g"]) - l1 * t, 0)
        return -lr * shrunk / (l2 * t * lr + np.sqrt(s["gg"]))
    return step


def ref_adadelta(lr=0.001, rho=0.95, eps=1e-8):
    def step(x, g, s, t):
        s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g * g
        update = np.sqrt(s.get("u", 0.0) + eps) / np.sqrt(s["a"] + eps) * g
        s["u"] = rho * s.get("u", 0.0) + (1 - rho) * update * update
        return x - lr * update
    return step


def ref_rmsprop(lr, decay=0.9, momentum=0.0, eps=1e-10, centered=False):
    def step(x, g, s, t):
        s["ms"] = decay * s.get("ms", 1.0) + (1 - decay) * g * g
        denom = s["ms"] + eps
        if centered:
            s["mg"] = decay * s.get("mg", 0.0) + (1 - decay) * g
            denom = s["ms"] - s["mg"] ** 2 + eps
        s["mom"] = momentum * s.get("mom", 0.0) + lr * g / np.sqrt(denom)
        return x - s["mom"]
    return step


def ref_ftrl(lr, lr_power=-0.5, init=0.1, l1=0.0, l2=0.0, shrinkage=0.0):
    def step(x, g, s, t):
        accum = s.get("accum", init)
        new_accum = accum + g * g
        s["linear"] = s.get("linear", 0.0) + g + 2 * shrinkage * x - \
            (new_accum ** -lr_power - accum ** -lr_power) / lr * x
        quadratic = new_accum ** -lr_power / lr + 2 * l2
        lin = s["linear"]
        s["accum"] = new_accum
        return np.where(np.abs(lin) > l1, (np.sign(lin) * l1 - lin) / quadratic, 0.0)
    return step


def ref_proximal_gd(lr, l1=0.0, l2=0.0):
    def step(x, g, s, t):
        prox = x - lr * g
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) / (1 + lr * l2)
    return step


def ref_proximal_adagrad(lr, init=0.1, l1=0.0, l2=0.0):
    def step(x, g, s, t):
        s["a"] = s.get("a", init) + g * g
        rate = lr / np.sqrt(s["a"])
        prox = x - rate * g
        return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + rate * l2)
    return step


CASES = [
    ("sgd", lambda step: tf.train.GradientDescentOptimizer(0.1), ref_sgd(0.1)),
    ("momentum", lambda step: tf.train.MomentumOptimizer(0.1, 0.9), ref_momentum(0.1, 0.9)),
    ("nesterov", lambda step: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
     ref_momentum(0.1, 0.9, True)),
    ("adam", lambda step: tf.train.AdamOptimizer(0.1), ref_adam(0.1)),
    ("adam_defaults", lambda step: tf.train.AdamOptimizer(), ref_adam()),
    ("adagrad", lambda step: tf.train.AdagradOptimizer(0.3), ref_adagrad(0.3)),
    ("adagrad_da", lambda step: tf.train.AdagradDAOptimizer(0.3, step), ref_adagrad_da(0.3)),
    ("adagrad_da_l1l2", lambda step: tf.train.AdagradDAOptimizer(
        0.3, step, l1_regularization_strength=0.1, l2_regularization_strength=0.2),
     ref_adagrad_da(0.3, 0.1, 0.2)),
    ("adadelta", lambda step: tf.train.AdadeltaOptimizer(1.0), ref_adadelta(1.0)),
    ("rmsprop", lambda step: tf.train.RMSPropOptimizer(0.01), ref_rmsprop(0.01)),
    ("rmsprop_momentum_centered", lambda step: tf.train.RMSPropOptimizer(
        0.01, momentum=0.5, centered=True), ref_rmsprop(0.01, momentum=0.5, centered=True)),
    ("ftrl", lambda step: tf.train.FtrlOptimizer(0.2), ref_ftrl(0.2)),
    ("ftrl_l1l2_shrinkage", lambda step: tf.train.FtrlOptimizer(
        0.2, learning_rate_power=-0.7, l1_regularization_strength=0.05,
        l2_regularization_strength=0.1, l2_shrinkage_regularization_strength=0.2),
     ref_ftrl(0.2, -0.7, l1=0.05, l2=0.1, shrinkage=0.2)),
    ("proximal_gd", lambda step: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.2, l2_regularization_strength=0.3),
     ref_proximal_gd(0.1, 0.2, 0.3)),
    ("proximal_adagrad", lambda step: tf.train.ProximalAdagradOptimizer(
        0.2, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
     ref_proximal_adagrad(0.2, l1=0.05, l2=0.1)),
]


def reference(update, steps=3):
    xs = [x.astype(np.float64) for x in X0]
    states = [{} for _ in xs]
    history = []
    for t in range(1, steps + 1):
        xs = [update(x, x + c, s, t) for x, c, s in zip(xs, C, states)]
        history.append(xs)
    return history


@pytest.mark.parametrize("name, make, update", CASES, ids=[c[0] for c in CASES])
def test_eager_three_steps(name, make, update):
    variables = [tf.Variable(x, name="eager_%s_%d" % (name, i)) for i, x in enumerate(X0)]
    step = tf.Variable(0, dtype=tf.int64, trainable=False)
    opt = make(step)
    for expected in reference(update):
        with tf.GradientTape() as tape:
            loss = loss_of(variables)
        grads = tape.gradient(loss, variables)
        assert opt.apply_gradients(zip(grads, variables), global_step=step) is None
        for v, e in zip(variables, expected):
            np.testing.assert_allclose(v.numpy(), e, rtol=1e-5, atol=1e-6)
    assert int(step.numpy()) == 3


@pytest.mark.parametrize("name, make, update", CASES, ids=[c[0] for c in CASES])
def test_graph_three_steps(name, make, update):
    with tf.Graph().as_default():
        variables = [tf.Variable(x, name="v%d" % i) for i, x in enumerate(X0)]
        step = tf.train.get_or_create_global_step()
        train_op = make(step).minimize(loss_of(variables), global_step=step)
        assert isinstance(train_op, tf.Operation)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for expected in reference(update):
                sess.run(train_op)
                for value, e in zip(sess.run(variables), expected):
                    np.testing.assert_allclose(value, e, rtol=1e-5, atol=1e-6)
            assert sess.run(step) == 3


def test_minimize_callable_loss_eager():
    v = tf.Variable([1.0, 2.0])
    opt = tf.train.GradientDescentOptimizer(0.5)
    assert opt.minimize(lambda: tf.reduce_sum(tf.square(v)), var_list=[v]) is None
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="should be a function"):
        opt.minimize(tf.reduce_sum(v))


def test_adam_slot_names_graph():
    with tf.Graph().as_default():
        with tf.variable_scope("dense"):
            kernel = tf.get_variable("kernel", initializer=np.ones((2, 2), np.float32))
            bias = tf.get_variable("bias", initializer=np.zeros(2, np.float32))
        opt = tf.train.AdamOptimizer()
        train_op = opt.minimize(tf.reduce_sum(kernel) + tf.reduce_sum(bias))
        assert train_op.name == "Adam"
        assert opt.get_slot_names() == ["m", "v"]
        assert opt.get_slot(kernel, "m").name == "dense/kernel/Adam:0"
        assert opt.get_slot(kernel, "v").name == "dense/kernel/Adam_1:0"
        assert opt.get_slot(bias, "v").name == "dense/bias/Adam_1:0"
        assert opt.get_slot(kernel, "nope") is None
        names = [v.name for v in opt.variables()]
        assert names == ["beta1_power:0", "beta2_power:0", "dense/bias/Adam:0",
                         "dense/bias/Adam_1:0", "dense/kernel/Adam:0", "dense/kernel/Adam_1:0"]
        global_names = set(v.name for v in tf.global_variables())
        assert set(names) <= global_names
        assert train_op in tf.get_collection(tf.GraphKeys.TRAIN_OP)


def test_slot_names_other_optimizers_graph():
    with tf.Graph().as_default():
        v = tf.Variable([1.0], name="w")
        loss = tf.reduce_sum(v * v)
        rms = tf.train.RMSPropOptimizer(0.1, centered=True)
        rms.minimize(loss)
        assert rms.get_slot(v, "rms").name == "w/RMSProp:0"
        assert rms.get_slot(v, "mg").name == "w/RMSProp_1:0"
        assert rms.get_slot(v, "momentum").name == "w/RMSProp_2:0"
        ftrl = tf.train.FtrlOptimizer(0.1)
        ftrl.minimize(loss)
        assert [ftrl.get_slot(v, s).name for s in ("accum", "linear")] == \
            ["w/Ftrl:0", "w/Ftrl_1:0"]
        mom = tf.train.MomentumOptimizer(0.1, 0.9)
        mom.minimize(loss)
        assert mom.get_slot(v, "momentum").name == "w/Momentum:0"


def test_rmsprop_ms_starts_at_one():
    v = tf.Variable([1.0], name="rms_init")
    opt = tf.train.RMSPropOptimizer(0.1)
    opt.apply_gradients([(tf.constant([0.0]), v)])
    np.testing.assert_allclose(opt.get_slot(v, "rms").numpy(), [0.9])


def test_none_gradients_skipped():
    a = tf.Variable([1.0], name="none_a")
    b = tf.Variable([1.0], name="none_b")
    opt = tf.train.AdamOptimizer(0.1)
    opt.apply_gradients([(None, a), (tf.constant([1.0]), b)])
    np.testing.assert_allclose(a.numpy(), [1.0])
    assert b.numpy()[0] < 1.0
    assert opt.get_slot(a, "m") is None
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, a), (None, b)])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])


def test_minimize_without_gradients_graph():
    with tf.Graph().as_default():
        v = tf.Variable([1.0])
        tf.Variable([2.0])
        with pytest.raises(ValueError, match="No gradients provided for any variable"):
            tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1.0) + 0.0)
        with pytest.raises(ValueError, match="No variables to optimize"):
            tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(v), var_list=[])


def test_minimize_var_list_dict_values_graph():
    # TF1 flattens var_list with nest, which takes dict views as sequences
    # (nlintz/TensorFlow-Tutorials 11_gan.py: minimize(loss, var_list=weights.values())).
    with tf.Graph().as_default():
        weights = {"w": tf.Variable([3.0]), "b": tf.Variable([1.0])}
        frozen = tf.Variable([5.0])
        loss = tf.reduce_sum(weights["w"] * weights["b"] + frozen)
        step = tf.train.GradientDescentOptimizer(0.5).minimize(loss, var_list=weights.values())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            np.testing.assert_allclose(sess.run([weights["w"], weights["b"], frozen]),
                                       [[2.5], [-0.5], [5.0]])


def test_graph_no_global_step_returns_group():
    with tf.Graph().as_default():
        v = tf.Variable([3.0])
        op = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(v * v), name="train")
        assert op.name == "train"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            np.testing.assert_allclose(sess.run(v), [0.0])


def test_learning_rate_forms_eager():
    lr_var = tf.Variable(0.5)
    for lr in (tf.constant(0.5), lr_var, lambda: tf.constant(0.5), 0.5):
        v = tf.Variable([2.0])
        tf.train.GradientDescentOptimizer(lr).apply_gradients([(tf.constant([1.0]), v)])
        np.testing.assert_allclose(v.numpy(), [1.5])
    v = tf.Variable([2.0])
    opt = tf.train.GradientDescentOptimizer(lr_var)
    lr_var.assign(0.25)
    opt.apply_gradients([(tf.constant([1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [1.75])


def test_learning_rate_placeholder_and_variable_graph():
    with tf.Graph().as_default():
        v = tf.Variable([2.0])
        lr = tf.placeholder(tf.float32, [])
        lr_var = tf.Variable(0.25, trainable=False)
        op1 = tf.train.GradientDescentOptimizer(lr).apply_gradients([(tf.constant([1.0]), v)])
        op2 = tf.train.GradientDescentOptimizer(lr_var).apply_gradients(
            [(tf.constant([1.0]), v)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op1, {lr: 0.5})
            np.testing.assert_allclose(sess.run(v), [1.5])
            sess.run(op2)
            np.testing.assert_allclose(sess.run(v), [1.25])


def test_decayed_learning_rate_graph():
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        v = tf.Variable([0.0])
        lr = tf.train.exponential_decay(1.0, step, 1, 0.5)
        op = tf.train.GradientDescentOptimizer(lr).apply_gradients(
            [(tf.constant([-1.0]), v)], global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(op)
            np.testing.assert_allclose(sess.run(v), [1.75])


def test_decayed_learning_rate_eager_callable():
    step = tf.Variable(0, dtype=tf.int64, trainable=False)
    lr = tf.train.exponential_decay(1.0, step, 1, 0.5)
    assert callable(lr)
    v = tf.Variable([0.0])
    opt = tf.train.GradientDescentOptimizer(lr)
    for _ in range(3):
        opt.apply_gradients([(tf.constant([-1.0]), v)], global_step=step)
    np.testing.assert_allclose(v.numpy(), [1.75])


def test_inside_function_creates_slots_once():
    v = tf.Variable([1.0, 2.0], name="fn_var")
    step = tf.Variable(0, dtype=tf.int64, trainable=False)
    opt = tf.train.AdamOptimizer(0.1)

    @tf.function
    def train():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(v))
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]), global_step=step)

    for _ in range(3):
        train()
    assert int(step.numpy()) == 3
    assert len(opt.variables()) == 4
    np.testing.assert_allclose(opt._get_beta_accumulators()[0].numpy(), 0.9 ** 4, rtol=1e-6)
    x = np.array([1.0, 2.0])
    update, state = ref_adam(0.1), {}
    for t in range(1, 4):
        x = update(x, 2 * x, state, t)
    np.testing.assert_allclose(v.numpy(), x, rtol=1e-5)


def test_custom_optimizer_subclass_per_variable():
    class HalfStep(tf.train.Optimizer):
        def __init__(self):
            super(HalfStep, self).__init__(False, "HalfStep")

        def _create_slots(self, var_list):
            for v in var_list:
                self._zeros_slot(v, "count", self._name)

        def _apply_dense(self, grad, var):
            count = self.get_slot(var, "count")
            return tf.group(var.assign_sub(0.5 * grad), count.assign_add(tf.ones_like(count)))

    with tf.Graph().as_default():
        v = tf.Variable([4.0], name="c")
        opt = HalfStep()
        op = opt.minimize(tf.reduce_sum(v))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            sess.run(op)
            np.testing.assert_allclose(sess.run([v, opt.get_slot(v, "count")]), [[3.0], [2.0]])
    v = tf.Variable([4.0], name="c_eager")
    HalfStep().apply_gradients([(tf.constant([1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [3.5])


def test_errors():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)
    with tf.Graph().as_default():
        v = tf.Variable([1, 2])
        with pytest.raises(ValueError, match="Invalid type"):
            tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(v), var_list=[v])


def test_rules_take_tensor_hyperparameters():
    import torch
    params = [torch.tensor([1.0, 2.0]), torch.tensor([[3.0]])]
    grads = [torch.tensor([0.5, -0.5]), torch.tensor([[1.0]])]
    m = [torch.zeros(2), torch.zeros(1, 1)]
    v = [torch.zeros(2), torch.zeros(1, 1)]
    update_rules.adam(params, grads, m, v, torch.tensor(0.1), torch.tensor(0.9), 0.999, 1e-7,
                      torch.tensor(0.9), 0.999)
    np.testing.assert_allclose(params[0].numpy(), [0.9, 2.1], rtol=1e-4)
    np.testing.assert_allclose(params[1].numpy(), [[2.9]], rtol=1e-4)


def _adam_steps(grads_of_step, fusable, steps=50):
    import torch
    rng = np.random.RandomState(0)
    params = [torch.tensor(rng.randn(8, 6).astype(np.float32)),
              torch.tensor(rng.randn(5).astype(np.float32))]
    m, v = [torch.zeros_like(p) for p in params], [torch.zeros_like(p) for p in params]
    original = update_rules._fusable
    update_rules._fusable = original if fusable else (lambda *args: False)
    try:
        for t in range(1, steps + 1):
            update_rules.adam(params, grads_of_step(t, rng), m, v, 0.01, 0.9, 0.999, 1e-7,
                              torch.tensor(0.9 ** t), 0.999 ** t)
    finally:
        update_rules._fusable = original
    return [p.numpy() for p in params + m + v]


def test_fused_adam_is_tf_adam_to_rounding():
    """The one-pass kernel gives the `_foreach_` form's values (TF's ApplyAdam formula), for
    contiguous gradients and for transposed ones (which take the `_foreach_` form)."""
    import torch

    def contiguous(t, rng):
        return [torch.tensor(rng.randn(8, 6).astype(np.float32)) * 0.1 ** (t % 3),
                torch.tensor(rng.randn(5).astype(np.float32))]

    def transposed(t, rng):
        first, second = contiguous(t, rng)
        return [first.t().contiguous().t(), second]

    for grads in (contiguous, transposed):
        fused, reference = _adam_steps(grads, True), _adam_steps(grads, False)
        for got, want in zip(fused, reference):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert not update_rules._fusable(([torch.zeros(2, 3).t()],))
    assert not update_rules._fusable(([torch.zeros(2)],), torch.tensor(0.9))
    assert update_rules._fusable(([torch.zeros(2)], [torch.zeros(2)]), 0.9)
