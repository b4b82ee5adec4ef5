"""A TF2 Keras Horovod training script, as Horovod's Keras examples are written: the
optimizer wrapped in hvd.DistributedOptimizer, worker 0's weights broadcast by
BroadcastGlobalVariablesCallback(0), epoch metrics averaged by MetricAverageCallback, each
worker fitting on its shard of every global batch. argv[2] picks the module:
'tensorflow.keras' (horovod.tensorflow.keras) or 'keras' (horovod.keras). Saves the final
weights and the History to OUT % rank."""
import importlib
import json
import sys

import numpy as np
import tensorflow as tf

hvd = importlib.import_module("horovod." + sys.argv[2])
hvd.init()
out = sys.argv[1]
GLOBAL_BATCH = 16
rng = np.random.RandomState(0)
x = rng.randn(64, 6).astype(np.float32)
y = (x @ rng.randn(6, 3)).argmax(axis=1).astype(np.int64)
# Horovod: each worker reads its shard of every global batch.
dataset = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()) \
    .batch(GLOBAL_BATCH // hvd.size())

tf.random.set_seed(7 + hvd.rank())   # workers draw other weights: worker 0's are broadcast
model = tf.keras.Sequential([
    tf.keras.layers.Dense(8, activation="relu", input_shape=(6,)),
    tf.keras.layers.Dense(3)])
optimizer = hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.1, momentum=0.9))
model.compile(optimizer=optimizer,
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
             hvd.callbacks.MetricAverageCallback()]
history = model.fit(dataset, epochs=3, callbacks=callbacks, verbose=0)
np.save(out % hvd.rank() + ".npy", np.concatenate([w.ravel() for w in model.get_weights()]))
with open(out % hvd.rank() + ".json", "w") as f:
    json.dump({"history": history.history, "optimizer": type(model.optimizer).__name__,
               "slots": len(model.optimizer.variables())}, f)
