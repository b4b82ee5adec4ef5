"""Workers end as Python would: an open file's writes reach it (also where the file was open
when the first graph froze the objects then alive), sys.exit's status is the worker's
(worker 0 exits 3). Writes OUT % rank."""
import sys
import tensorflow as tf
s = tf.distribute.MultiWorkerMirroredStrategy()
f = open(sys.argv[1] % s.cluster_resolver.task_id, "w")
f.write("written without close\n")
# The process's first graph (a tf.function), then an all-reduce, so that neither worker is
# stopped by the other's failing exit while it builds it.
s.reduce(tf.distribute.ReduceOp.SUM, s.run(tf.function(lambda: tf.constant(1.0))), axis=None)
sys.exit(3 if s.cluster_resolver.task_id == 0 else 0)
