"""A TF1 graph-mode classifier written with tf.contrib.layers, slim's arg_scope and
tf.app.flags, trained on synthetic 8x8 images (the bright quadrant is the class).

Run: python -m tfcompat examples/tf1_contrib_layers.py [--train_steps=200] [--batch_size=32]
"""
import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_integer("train_steps", 200, "number of training steps", lower_bound=1)
flags.DEFINE_integer("batch_size", 32, "examples per step", lower_bound=1)
flags.DEFINE_float("learning_rate", 0.01, "Adam learning rate")
flags.DEFINE_float("keep_prob", 0.8, "dropout keep probability while training")
FLAGS = flags.FLAGS

NUM_CLASSES = 4
layers = tf.contrib.layers
slim = tf.contrib.slim


def synthetic_batch(rng, size):
    """Noise images; class k brightens quadrant k."""
    labels = rng.randint(0, NUM_CLASSES, size)
    images = rng.rand(size, 8, 8, 1).astype(np.float32) * 0.5
    for i, label in enumerate(labels):
        row, col = divmod(label, 2)
        images[i, row * 4:row * 4 + 4, col * 4:col * 4 + 4, 0] += 0.5
    return images, labels


def model(images, is_training):
    with slim.arg_scope([layers.conv2d, layers.fully_connected],
                        weights_regularizer=layers.l2_regularizer(1e-4),
                        normalizer_fn=layers.batch_norm,
                        normalizer_params={"is_training": is_training, "decay": 0.9}):
        net = layers.conv2d(images, 8, [3, 3], scope="conv1")
        net = layers.max_pool2d(net, [2, 2], scope="pool1")
        net = layers.conv2d(net, 16, [3, 3], scope="conv2")
        net = layers.flatten(net)
        net = layers.fully_connected(net, 32, scope="fc1")
        net = layers.dropout(net, FLAGS.keep_prob, is_training=is_training)
        return layers.fully_connected(net, NUM_CLASSES, activation_fn=None,
                                      normalizer_fn=None, scope="logits")


def main(_):
    rng = np.random.RandomState(0)
    tf.set_random_seed(0)
    images = tf.placeholder(tf.float32, [None, 8, 8, 1])
    labels = tf.placeholder(tf.int64, [None])
    is_training = tf.placeholder(tf.bool, [])
    logits = model(images, is_training)
    tf.losses.sparse_softmax_cross_entropy(labels, logits)
    total_loss = tf.losses.get_total_loss()
    global_step = tf.train.get_or_create_global_step()
    train_op = layers.optimize_loss(total_loss, global_step, FLAGS.learning_rate, "Adam",
                                    summaries=[])
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    tf.logging.info("model variables: %s", [v.name for v in slim.get_model_variables()])

    test_images, test_labels = synthetic_batch(rng, 500)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.train_steps):
            batch_images, batch_labels = synthetic_batch(rng, FLAGS.batch_size)
            loss = sess.run(train_op, {images: batch_images, labels: batch_labels,
                                       is_training: True})
            if step % 100 == 0 or step == FLAGS.train_steps - 1:
                print("step %d loss %.4f" % (sess.run(global_step), loss))
        print("test accuracy %.3f" % sess.run(accuracy, {images: test_images,
                                                         labels: test_labels,
                                                         is_training: False}))


if __name__ == "__main__":
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run()
