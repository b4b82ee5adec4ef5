"""A TF2 custom training loop as Horovod's tensorflow2 examples write it: a tf.function step
whose tape is wrapped in hvd.DistributedGradientTape, the model's and the optimizer's
variables broadcast from worker 0 after the first step, each worker training on its shard
of every global batch. argv[2]: 'shared' seeds every worker's weights alike, 'own' gives each
worker its own (the first step then averages gradients taken at different weights, as in
Horovod). Saves the final weights to OUT % rank."""
import sys

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
out = sys.argv[1]
GLOBAL_BATCH = 16
rng = np.random.RandomState(0)
x = rng.randn(48, 5).astype(np.float32)
y = (x @ rng.randn(5, 1)).astype(np.float32)
dataset = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()) \
    .batch(GLOBAL_BATCH // hvd.size())

tf.random.set_seed(3 if sys.argv[2] == "shared" else 3 + hvd.rank())
model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="tanh", input_shape=(5,)),
                             tf.keras.layers.Dense(1)])
loss_fn = tf.keras.losses.MeanSquaredError()
optimizer = tf.keras.optimizers.Adam(0.01)


@tf.function
def training_step(features, labels, first_batch):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(features, training=True))
    # Horovod: add Horovod Distributed GradientTape.
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    # Horovod: broadcast initial variable states from rank 0 to all other processes, after
    # the first gradient step so that the optimizer's slots exist.
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables(), root_rank=0)
    return loss


for epoch in range(2):
    for batch, (features, labels) in enumerate(dataset):
        loss = training_step(features, labels, epoch == 0 and batch == 0)
np.save(out % hvd.rank() + ".npy", np.concatenate([w.ravel() for w in model.get_weights()]))
