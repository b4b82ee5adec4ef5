"""A TF1 Horovod training script, as Horovod's TF1 examples are written: placeholders, a
DistributedOptimizer around tf.train.GradientDescentOptimizer, worker 0's initial weights
broadcast (BroadcastGlobalVariablesHook in a MonitoredTrainingSession, or the op of
hvd.broadcast_global_variables(0) run in a Session: argv[2] 'hook' or 'op'), each worker
training on its shard of every global batch. Saves the final weights to OUT % rank."""
import sys

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
out, how = sys.argv[1], sys.argv[2]
GLOBAL_BATCH = 16
rng = np.random.RandomState(0)
x_all = rng.randn(GLOBAL_BATCH, 5).astype(np.float32)
y_all = np.tanh(x_all @ rng.randn(5, 2)).astype(np.float32)
# Horovod: each worker trains on its shard of the batch.
x_shard, y_shard = x_all[hvd.rank()::hvd.size()], y_all[hvd.rank()::hvd.size()]

tf.set_random_seed(1 + hvd.rank())   # workers draw other weights: worker 0's are broadcast
features = tf.placeholder(tf.float32, [None, 5])
labels = tf.placeholder(tf.float32, [None, 2])
hidden = tf.layers.dense(features, 8, activation=tf.nn.tanh)
prediction = tf.layers.dense(hidden, 2)
loss = tf.reduce_mean(tf.square(prediction - labels))
global_step = tf.train.get_or_create_global_step()
# Horovod: wrap the optimizer (the learning rate is kept, so one process on the global
# batch takes the same steps).
optimizer = hvd.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.2))
train_op = optimizer.minimize(loss, global_step=global_step)
feed = {features: x_shard, labels: y_shard}

if how == "hook":
    hooks = [hvd.BroadcastGlobalVariablesHook(0)]
    with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
        for _ in range(5):
            sess.run(train_op, feed_dict=feed)
        weights = sess.run(tf.trainable_variables())
else:
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(hvd.broadcast_global_variables(0))
        for _ in range(5):
            sess.run(train_op, feed_dict=feed)
        weights = sess.run(tf.trainable_variables())
np.save(out % hvd.rank() + ".npy", np.concatenate([w.ravel() for w in weights]))
