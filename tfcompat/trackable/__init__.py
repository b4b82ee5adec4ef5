"""Object-based checkpoint tracking shared by tf.Module, Keras and tf.train.Checkpoint
(TF's `tensorflow/python/trackable`)."""
