"""`tf.distribute.cluster_resolver`: where the job's tasks are."""
