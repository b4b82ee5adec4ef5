"""Keras fit under MultiWorkerMirroredStrategy with BackupAndRestore: run with EPOCHS=2 and
then EPOCHS=4 on the same BACKUP dir, the second job resumes from the chief's backup of the
first and ends where one 4-epoch job ends. Saves weights to OUT % rank."""
import json
import sys

import numpy as np
import tensorflow as tf

out, backup, epochs = sys.argv[1], sys.argv[2], int(sys.argv[3])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
rng = np.random.RandomState(1)
x = rng.randn(48, 4).astype(np.float32)
y = (x.sum(axis=1, keepdims=True) > 0).astype(np.float32)

with strategy.scope():
    tf.random.set_seed(3)
    model = tf.keras.Sequential([tf.keras.layers.Dense(6, activation="tanh", input_shape=(4,)),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(tf.keras.optimizers.Adam(0.02), "binary_crossentropy")

backup_callback = tf.keras.callbacks.BackupAndRestore(backup, delete_checkpoint=False)
history = model.fit(x, y, batch_size=12, epochs=epochs, shuffle=False, verbose=0,
                    callbacks=[backup_callback])
np.save(out % rank + ".npy", np.concatenate([w.ravel() for w in model.get_weights()]))
with open(out % rank + ".json", "w") as f:
    json.dump({"epochs_run": len(history.history["loss"]),
               "replicas": strategy.num_replicas_in_sync}, f)
