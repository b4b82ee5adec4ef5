"""Keras fit under MultiWorkerMirroredStrategy, as TF 2's multi-worker Keras tutorial
trains: the model built and compiled in the strategy's scope, fit on a batched dataset of
the global batch size. Saves the final weights and the History to OUT % rank."""
import json
import sys

import numpy as np
import tensorflow as tf

out = sys.argv[1]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
GLOBAL_BATCH = 16
rng = np.random.RandomState(0)
x = rng.randn(64, 6).astype(np.float32)
y = (x @ rng.randn(6, 3)).argmax(axis=1).astype(np.int64)
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)

with strategy.scope():
    tf.random.set_seed(7 + rank)   # each worker draws other weights: worker 0's are broadcast
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(6,)),
        tf.keras.layers.Dense(3)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

history = model.fit(dataset, epochs=3, verbose=0)
evaluation = model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0)
np.save(out % rank + ".npy", np.concatenate([w.ravel() for w in model.get_weights()]))
with open(out % rank + ".json", "w") as f:
    json.dump({"history": history.history, "evaluate": evaluation,
               "replicas": strategy.num_replicas_in_sync}, f)
