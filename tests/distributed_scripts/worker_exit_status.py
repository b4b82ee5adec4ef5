"""Workers end as Python would: an open file's writes reach it, sys.exit's status is the
worker's (worker 0 exits 3). Writes OUT % rank."""
import sys
import tensorflow as tf
s = tf.distribute.MultiWorkerMirroredStrategy()
f = open(sys.argv[1] % s.cluster_resolver.task_id, "w")
f.write("written without close\n")
sys.exit(3 if s.cluster_resolver.task_id == 0 else 0)
