"""A MultiWorkerMirroredStrategy custom training loop in the shape of TF 2's multi-worker
tutorial: a distributed dataset of the global batch, strategy.run of a step that scales the
loss with compute_average_loss, strategy.reduce of the losses, in a tf.function. Saves the
final weights and the losses to OUT % rank."""
import json
import sys

import numpy as np
import tensorflow as tf

out = sys.argv[1]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id or 0
GLOBAL_BATCH = 8
rng = np.random.RandomState(0)
x = rng.randn(32, 5).astype(np.float32)
y = (x @ rng.randn(5, 1)).astype(np.float32)
dist_dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))

with strategy.scope():
    tf.random.set_seed(1 + rank)   # each worker draws other weights: worker 0's are broadcast
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(5,)),
                                 tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.1, momentum=0.5)


def train_step(inputs):
    features, labels = inputs
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(features, training=True) - labels), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_step(inputs):
    losses = strategy.run(train_step, args=(inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


losses = []
for epoch in range(3):
    for batch in dist_dataset:
        losses.append(float(distributed_step(batch)))
# strategy.gather is differentiable: each worker's rows get the gradients of every
# worker's loss (row i of the gathered [1 + rank rows] weighs i + 1)
rows = tf.Variable(tf.ones([1 + rank, 2]))
with tf.GradientTape() as tape:
    gathered = strategy.gather(rows, axis=0)
    weights = tf.range(1.0, 1.0 + tf.cast(tf.shape(gathered)[0], tf.float32))
    weighted = tf.reduce_sum(gathered * weights[:, None])
np.save(out % rank + ".npy", np.concatenate([w.ravel() for w in model.get_weights()]))
with open(out % rank + ".json", "w") as f:
    json.dump({"losses": losses, "replicas": strategy.num_replicas_in_sync,
               "gather_gradient": tape.gradient(weighted, rows).numpy().tolist()}, f)
