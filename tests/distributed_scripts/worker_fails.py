"""Worker 1 of a MultiWorkerMirroredStrategy job dies; the job must end, naming it."""
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
if strategy.cluster_resolver.task_id == 1:
    raise RuntimeError("worker 1 fails on purpose")
with strategy.scope():
    v = tf.Variable(1.0)
print(strategy.reduce("SUM", tf.constant(1.0), axis=None))
