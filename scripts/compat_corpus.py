"""Real-script compatibility corpus: manifest + command line.

Each entry names a public TF 1.x or 2.x script (repository, commit, path; notebooks run as
their code cells joined) and the OFFLINE patches applied before running it: exact text
replacements that swap downloads for synthetic data of the same shapes/dtypes
(scripts/compat_corpus_data.py, copied beside the script as `_corpus_data.py`) and cut
epochs/steps. No patch changes which TF API a script uses. Plotting is a no-op `matplotlib`
stub put first on PYTHONPATH for both runs.

Each script runs under real TensorFlow (a side venv, TF_USE_LEGACY_KERAS=1 for Keras 2; a
TF1-era script gets the single extra patch `import tensorflow as tf` ->
`import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()`, and counts as
"tf1 (not installable)" when it still fails) and under `python -m tfcompat`. Results go to
scripts/compat_corpus_results.json and docs/compatibility.md.

    python scripts/compat_corpus.py                      # everything, then the table
    python scripts/compat_corpus.py --only tf2_aymeric_helloworld --tfcompat-only
    python scripts/compat_corpus.py --table-only         # re-render from the saved results

Mirrors: `/work/.mirror/<owner>+<name>/repo` (the fetch tool's layout), or --mirrors.
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compat_corpus_run import (REPO_ROOT, load_results, render_table, run_corpus,  # noqa: E402
                               save_results)

SOURCES = {
    "aymeric": ("aymericdamien/TensorFlow-Examples", "6dcbe14649163814e72a22a999f20c5e247ce988"),
    "nlintz": ("nlintz/TensorFlow-Tutorials", "d6bdab7df46492446c48537fcf37e20ba44e8168"),
    # tensorflow/docs as of 2023-11-30: the TF 2.15 / Keras 2 era of the guides.
    "tfdocs": ("tensorflow/docs", "48fd03d5991220717f45b12620bf8091d042531b"),
}

Entry = collections.namedtuple("Entry", "id era source path exercises patches drop_cells")


def entry(id, era, source, path, exercises, patches=(), drop_cells=()):
    return Entry(id, era, source, path, exercises, tuple(patches), tuple(drop_cells))


# Offline patches shared by many scripts.
MNIST_TF1 = ("from tensorflow.examples.tutorials.mnist import input_data",
             "import _corpus_data as input_data")
MNIST_KERAS = ("mnist.load_data()", "__import__('_corpus_data').mnist_load_data()")


def steps(name, old, new):
    """Cut a `name = old` hyper-parameter assignment to `new`."""
    return ("%s = %s" % (name, old), "%s = %s" % (name, new))


V1 = "tensorflow_v1/examples/"
V2 = "tensorflow_v2/notebooks/"
DOCS = "site/en/"

CORPUS = [
    # ---- TF 2.x era -------------------------------------------------------------------
    entry("tf2_aymeric_helloworld", "tf2", "aymeric", V2 + "1_Introduction/helloworld.ipynb",
          "string constant, .numpy()"),
    entry("tf2_aymeric_basic_operations", "tf2", "aymeric",
          V2 + "1_Introduction/basic_operations.ipynb", "eager math ops, matmul"),
    entry("tf2_aymeric_linear_regression", "tf2", "aymeric",
          V2 + "2_BasicModels/linear_regression.ipynb",
          "GradientTape, tf.optimizers.SGD on Variables",
          [steps("training_steps", 1000, 50), steps("display_step", 50, 10)]),
    entry("tf2_aymeric_logistic_regression", "tf2", "aymeric",
          V2 + "2_BasicModels/logistic_regression.ipynb",
          "tf.data repeat/shuffle/batch, one_hot, GradientTape",
          [MNIST_KERAS, steps("training_steps", 1000, 20), steps("display_step", 50, 5)]),
    entry("tf2_aymeric_gradient_boosted_trees", "tf2", "aymeric",
          V2 + "2_BasicModels/gradient_boosted_trees.ipynb",
          "tf.estimator.BoostedTreesClassifier/Regressor, numpy_input_fn",
          [("boston_housing.load_data()",
            "__import__('_corpus_data').boston_housing_load_data()"),
           steps("max_steps", 2000, 10)]),
    entry("tf2_aymeric_autoencoder", "tf2", "aymeric", V2 + "3_NeuralNetworks/autoencoder.ipynb",
          "raw-variable autoencoder, tf.function-free training loop",
          [MNIST_KERAS, steps("training_steps", 20000, 20), steps("display_step", 1000, 5)]),
    entry("tf2_aymeric_bidirectional_rnn", "tf2", "aymeric",
          V2 + "3_NeuralNetworks/bidirectional_rnn.ipynb",
          "keras Bidirectional(LSTM) in a subclassed Model",
          [MNIST_KERAS, steps("training_steps", 1000, 10), steps("display_step", 100, 5)]),
    entry("tf2_aymeric_convolutional_network", "tf2", "aymeric",
          V2 + "3_NeuralNetworks/convolutional_network.ipynb",
          "keras Conv2D/MaxPool2D/Dropout subclassed Model",
          [MNIST_KERAS, steps("training_steps", 200, 10), steps("display_step", 10, 5)]),
    entry("tf2_aymeric_convolutional_network_raw", "tf2", "aymeric",
          V2 + "3_NeuralNetworks/convolutional_network_raw.ipynb",
          "tf.nn.conv2d/max_pool with raw Variables, Adam",
          [MNIST_KERAS, steps("training_steps", 200, 10), steps("display_step", 10, 5)]),
    entry("tf2_aymeric_dcgan", "tf2", "aymeric", V2 + "3_NeuralNetworks/dcgan.ipynb",
          "Conv2DTranspose, BatchNormalization, two optimizers",
          [MNIST_KERAS, steps("training_steps", 20000, 4), steps("display_step", 500, 2)]),
    entry("tf2_aymeric_dynamic_rnn", "tf2", "aymeric", V2 + "3_NeuralNetworks/dynamic_rnn.ipynb",
          "Dataset.from_generator, Masking + LSTM",
          [steps("training_steps", 2000, 10), steps("display_step", 100, 5)]),
    entry("tf2_aymeric_neural_network", "tf2", "aymeric",
          V2 + "3_NeuralNetworks/neural_network.ipynb", "keras Dense subclassed Model, SGD",
          [MNIST_KERAS, steps("training_steps", 2000, 20), steps("display_step", 100, 5)]),
    entry("tf2_aymeric_neural_network_raw", "tf2", "aymeric",
          V2 + "3_NeuralNetworks/neural_network_raw.ipynb",
          "raw Variables, tf.random.normal, SGD",
          [MNIST_KERAS, steps("training_steps", 3000, 20), steps("display_step", 100, 5)]),
    entry("tf2_aymeric_recurrent_network", "tf2", "aymeric",
          V2 + "3_NeuralNetworks/recurrent_network.ipynb", "keras LSTM layer, Adam",
          [MNIST_KERAS, steps("training_steps", 1000, 10), steps("display_step", 100, 5)]),
    entry("tf2_aymeric_build_custom_layers", "tf2", "aymeric",
          V2 + "4_Utils/build_custom_layers.ipynb", "custom keras Layer with add_weight",
          [MNIST_KERAS, steps("training_steps", 500, 20), steps("display_step", 50, 5)]),
    entry("tf2_aymeric_save_restore_model", "tf2", "aymeric",
          V2 + "4_Utils/save_restore_model.ipynb",
          "tf.train.Checkpoint of Variables, Model.save_weights/load_weights",
          [MNIST_KERAS, steps("training_steps", 1000, 10), steps("display_step", 50, 5),
           steps("display_step", 100, 5)]),
    entry("tf2_aymeric_tensorboard", "tf2", "aymeric", V2 + "4_Utils/tensorboard.ipynb",
          "tf.summary.create_file_writer, trace_on/trace_export, histograms",
          [MNIST_KERAS, steps("training_steps", 3000, 10), steps("display_step", 100, 5)]),
    entry("tf2_aymeric_multigpu_training", "tf2", "aymeric",
          V2 + "6_Hardware/multigpu_training.ipynb",
          "tf.device per tower, gradient averaging, cifar10",
          [("cifar10.load_data()", "__import__('_corpus_data').cifar10_load_data()"),
           steps("training_steps", 1000, 2), steps("display_step", 20, 1),
           ("batch_size = 1024 * num_gpus", "batch_size = 32 * num_gpus")]),
    entry("tf2_docs_quickstart_beginner", "tf2", "tfdocs",
          DOCS + "tutorials/quickstart/beginner.ipynb",
          "Sequential, compile/fit/evaluate, Softmax model",
          [MNIST_KERAS, ("epochs=5", "epochs=1")]),
    entry("tf2_docs_quickstart_advanced", "tf2", "tfdocs",
          DOCS + "tutorials/quickstart/advanced.ipynb",
          "subclassed Model, tf.function train_step, keras metrics",
          [MNIST_KERAS, ("EPOCHS = 5", "EPOCHS = 1")]),
    entry("tf2_docs_keras_classification", "tf2", "tfdocs",
          DOCS + "tutorials/keras/classification.ipynb",
          "Flatten/Dense, fit, predict, Softmax",
          [("fashion_mnist.load_data()",
            "__import__('_corpus_data').fashion_mnist_load_data()"),
           ("epochs=10", "epochs=1")]),
    entry("tf2_docs_keras_save_and_load", "tf2", "tfdocs",
          DOCS + "tutorials/keras/save_and_load.ipynb",
          "ModelCheckpoint, save_weights, latest_checkpoint, model.save .keras/.h5/SavedModel",
          [("tf.keras.datasets.mnist.load_data()",
            "__import__('_corpus_data').mnist_load_data()"),
           ("epochs=10", "epochs=1"), ("epochs=50", "epochs=5"),
           ("epochs=5", "epochs=1")]),
    entry("tf2_docs_customization_basics", "tf2", "tfdocs",
          DOCS + "tutorials/customization/basics.ipynb",
          "tensors, numpy interop, devices, tf.data from file"),
    entry("tf2_docs_custom_layers", "tf2", "tfdocs",
          DOCS + "tutorials/customization/custom_layers.ipynb",
          "custom Layer build/call, ResNet identity block"),
    entry("tf2_docs_images_cnn", "tf2", "tfdocs", DOCS + "tutorials/images/cnn.ipynb",
          "Sequential CNN on cifar10, fit with validation_data, history",
          [("datasets.cifar10.load_data()", "__import__('_corpus_data').cifar10_load_data()"),
           ("epochs=10", "epochs=1")]),
    entry("tf2_docs_load_data_numpy", "tf2", "tfdocs", DOCS + "tutorials/load_data/numpy.ipynb",
          "np.load of mnist.npz, Dataset.from_tensor_slices, fit on a Dataset",
          [("tf.keras.utils.get_file('mnist.npz', DATA_URL)",
            "__import__('_corpus_data').mnist_npz('mnist.npz')"),
           ("epochs=10", "epochs=1")]),
    entry("tf2_guide_basics", "tf2", "tfdocs", DOCS + "guide/basics.ipynb",
          "tensors, tf.function, Module, training loop, keras fit",
          [("epochs = 100", "epochs = 10"), ("epochs=100", "epochs=5")]),
    entry("tf2_guide_autodiff", "tf2", "tfdocs", DOCS + "guide/autodiff.ipynb",
          "GradientTape: watch, persistent, control flow, unconnected_gradients"),
    entry("tf2_guide_advanced_autodiff", "tf2", "tfdocs", DOCS + "guide/advanced_autodiff.ipynb",
          "stop_recording, custom_gradient, jacobian, batch_jacobian, hessians"),
    entry("tf2_guide_basic_training_loops", "tf2", "tfdocs",
          DOCS + "guide/basic_training_loops.ipynb",
          "tf.Module linear model, manual SGD, keras Model fit"),
    entry("tf2_guide_intro_to_graphs", "tf2", "tfdocs", DOCS + "guide/intro_to_graphs.ipynb",
          "tf.function tracing, get_concrete_function, graph_def, retracing",
          [("number=1000", "number=10")]),
    entry("tf2_guide_intro_to_modules", "tf2", "tfdocs", DOCS + "guide/intro_to_modules.ipynb",
          "tf.Module, tf.train.Checkpoint, tf.saved_model.save/load, keras layers as modules"),
    entry("tf2_guide_variable", "tf2", "tfdocs", DOCS + "guide/variable.ipynb",
          "tf.Variable assign/name/trainable, device placement"),
    entry("tf2_guide_tensor", "tf2", "tfdocs", DOCS + "guide/tensor.ipynb",
          "tensor dtypes, shapes, broadcasting, ragged/string/sparse tensors"),
    entry("tf2_guide_tensor_slicing", "tf2", "tfdocs", DOCS + "guide/tensor_slicing.ipynb",
          "tf.slice, gather, gather_nd, scatter_nd, tensor_scatter_nd_*"),
    entry("tf2_guide_random_numbers", "tf2", "tfdocs", DOCS + "guide/random_numbers.ipynb",
          "tf.random.Generator, stateless random ops, saved_model of a generator"),
    entry("tf2_guide_checkpoint", "tf2", "tfdocs", DOCS + "guide/checkpoint.ipynb",
          "tf.train.Checkpoint/CheckpointManager, list_variables, delayed restore"),
    entry("tf2_guide_function", "tf2", "tfdocs", DOCS + "guide/function.ipynb",
          "tf.function retracing, input_signature, autograph, side effects",
          [("number=10", "number=2")]),
    entry("tf2_distribute_custom_training", "tf2", "tfdocs",
          DOCS + "tutorials/distribute/custom_training.ipynb",
          "MirroredStrategy custom loop: distributed datasets, run/reduce, "
          "compute_average_loss, metrics and checkpoints in scope",
          [("fashion_mnist.load_data()", "__import__('_corpus_data').mnist_load_data()"),
           ("EPOCHS = 10", "EPOCHS = 1")]),
    entry("tf2_distribute_input", "tf2", "tfdocs", DOCS + "tutorials/distribute/input.ipynb",
          "virtual CPUs, distributed datasets and iterators, get_next_as_optional, "
          "distribute_datasets_from_function, element_spec signatures"),
    # ---- TF 1.x era -------------------------------------------------------------------
    entry("tf1_aymeric_helloworld", "tf1", "aymeric", V1 + "1_Introduction/helloworld.py",
          "Session.run of a string constant"),
    entry("tf1_aymeric_basic_operations", "tf1", "aymeric",
          V1 + "1_Introduction/basic_operations.py", "placeholders, feed_dict, matmul"),
    entry("tf1_aymeric_basic_eager_api", "tf1", "aymeric",
          V1 + "1_Introduction/basic_eager_api.py",
          "tf.enable_eager_execution, tf.contrib.eager"),
    entry("tf1_aymeric_linear_regression", "tf1", "aymeric",
          V1 + "2_BasicModels/linear_regression.py", "GradientDescentOptimizer, feed_dict",
          [steps("training_epochs", 1000, 20), steps("display_step", 50, 10)]),
    entry("tf1_aymeric_linear_regression_eager", "tf1", "aymeric",
          V1 + "2_BasicModels/linear_regression_eager_api.py",
          "tfe.implicit_gradients, eager optimizer",
          [steps("num_steps", 1000, 20), steps("display_step", 100, 10)]),
    entry("tf1_aymeric_logistic_regression", "tf1", "aymeric",
          V1 + "2_BasicModels/logistic_regression.py", "softmax regression, epochs of next_batch",
          [MNIST_TF1, steps("training_epochs", 25, 1)]),
    entry("tf1_aymeric_logistic_regression_eager", "tf1", "aymeric",
          V1 + "2_BasicModels/logistic_regression_eager_api.py",
          "tfe.implicit_value_and_gradients, tf.data iterator in eager",
          [MNIST_TF1, steps("num_steps", 1000, 20), steps("display_step", 100, 5)]),
    entry("tf1_aymeric_nearest_neighbor", "tf1", "aymeric",
          V1 + "2_BasicModels/nearest_neighbor.py", "L1 distance, arg_min, many small runs",
          [MNIST_TF1]),
    entry("tf1_aymeric_kmeans", "tf1", "aymeric", V1 + "2_BasicModels/kmeans.py",
          "tf.contrib.factorization.KMeans",
          [MNIST_TF1, ("num_steps = 50 #", "num_steps = 5 #")]),
    entry("tf1_aymeric_random_forest", "tf1", "aymeric", V1 + "2_BasicModels/random_forest.py",
          "tf.contrib.tensor_forest",
          [MNIST_TF1, ("num_steps = 500 #", "num_steps = 5 #")]),
    entry("tf1_aymeric_gbdt", "tf1", "aymeric",
          V1 + "2_BasicModels/gradient_boosted_decision_tree.py",
          "tf.contrib.boosted_trees estimator",
          [MNIST_TF1, steps("max_steps", 10000, 10)]),
    entry("tf1_aymeric_autoencoder", "tf1", "aymeric", V1 + "3_NeuralNetworks/autoencoder.py",
          "sigmoid autoencoder, RMSPropOptimizer",
          [MNIST_TF1, steps("num_steps", 30000, 20), steps("display_step", 1000, 5)]),
    entry("tf1_aymeric_bidirectional_rnn", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/bidirectional_rnn.py",
          "contrib.rnn static_bidirectional_rnn, BasicLSTMCell",
          [MNIST_TF1, steps("training_steps", 10000, 10), steps("display_step", 200, 5)]),
    entry("tf1_aymeric_convolutional_network", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/convolutional_network.py",
          "tf.estimator custom model_fn, tf.layers, numpy_input_fn",
          [MNIST_TF1, steps("num_steps", 2000, 10)]),
    entry("tf1_aymeric_convolutional_network_raw", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/convolutional_network_raw.py",
          "tf.nn.conv2d/max_pool, dropout keep_prob",
          [MNIST_TF1, steps("num_steps", 200, 10), steps("display_step", 10, 5)]),
    entry("tf1_aymeric_dcgan", "tf1", "aymeric", V1 + "3_NeuralNetworks/dcgan.py",
          "tf.layers conv2d_transpose, batch_normalization, var_list per optimizer",
          [MNIST_TF1, steps("num_steps", 20000, 4)]),
    entry("tf1_aymeric_gan", "tf1", "aymeric", V1 + "3_NeuralNetworks/gan.py",
          "raw-variable GAN, two AdamOptimizers with var_list",
          [MNIST_TF1, steps("num_steps", 100000, 20)]),
    entry("tf1_aymeric_dynamic_rnn", "tf1", "aymeric", V1 + "3_NeuralNetworks/dynamic_rnn.py",
          "contrib.rnn static_rnn with sequence_length, gather of last outputs",
          [steps("training_steps", 10000, 10), steps("display_step", 200, 5)]),
    entry("tf1_aymeric_multilayer_perceptron", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/multilayer_perceptron.py", "MLP, AdamOptimizer, epochs",
          [MNIST_TF1, steps("training_epochs", 15, 1)]),
    entry("tf1_aymeric_neural_network", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/neural_network.py", "tf.estimator with tf.layers.dense",
          [MNIST_TF1, steps("num_steps", 1000, 10)]),
    entry("tf1_aymeric_neural_network_eager", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/neural_network_eager_api.py",
          "tfe.Network subclass, tfe.Iterator, tf.layers.Dense, implicit_value_and_gradients",
          [MNIST_TF1, steps("num_steps", 1000, 20), steps("display_step", 100, 5)]),
    entry("tf1_aymeric_neural_network_raw", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/neural_network_raw.py", "raw MLP, softmax_cross_entropy",
          [MNIST_TF1, steps("num_steps", 500, 20), steps("display_step", 100, 5)]),
    entry("tf1_aymeric_recurrent_network", "tf1", "aymeric",
          V1 + "3_NeuralNetworks/recurrent_network.py", "contrib.rnn static_rnn, unstack",
          [MNIST_TF1, steps("training_steps", 10000, 10), steps("display_step", 200, 5)]),
    entry("tf1_aymeric_save_restore_model", "tf1", "aymeric",
          V1 + "4_Utils/save_restore_model.py", "tf.train.Saver save/restore across sessions",
          [MNIST_TF1, ("for epoch in range(3):", "for epoch in range(1):"),
           ("for epoch in range(7):", "for epoch in range(1):")]),
    entry("tf1_aymeric_tensorboard_basic", "tf1", "aymeric", V1 + "4_Utils/tensorboard_basic.py",
          "summary.scalar, merge_all, FileWriter with graph",
          [MNIST_TF1, steps("training_epochs", 25, 1)]),
    entry("tf1_aymeric_tensorboard_advanced", "tf1", "aymeric",
          V1 + "4_Utils/tensorboard_advanced.py",
          "name_scopes, histogram summaries of gradients, merge_all",
          [MNIST_TF1, steps("training_epochs", 25, 1)]),
    entry("tf1_aymeric_dataset_api", "tf1", "aymeric",
          V1 + "5_DataManagement/tensorflow_dataset_api.py",
          "tf.data make_initializable_iterator in a Session, contrib.layers",
          [MNIST_TF1, steps("num_steps", 2000, 10), steps("display_step", 100, 5)]),
    entry("tf1_aymeric_multigpu_basics", "tf1", "aymeric",
          V1 + "6_MultiGPU/multigpu_basics.py", "tf.device('/gpu:N'), log_device_placement",
          [("np.random.rand(10000, 10000)", "np.random.rand(1000, 1000)"),
           ("[10000, 10000]", "[1000, 1000]")]),
    entry("tf1_aymeric_multigpu_cnn", "tf1", "aymeric", V1 + "6_MultiGPU/multigpu_cnn.py",
          "tower gradients averaged, tf.layers, variable reuse",
          [MNIST_TF1, steps("num_steps", 200, 4), steps("display_step", 10, 2)]),
    # tensorflow/docs site/en/r1: the TF 1.x guides, ported there to
    # `import tensorflow.compat.v1 as tf` (so real TF 2 runs them as written).
    entry("tf1_docs_r1_guide_eager", "tf1", "tfdocs", DOCS + "r1/guide/eager.ipynb",
          "tf.enable_eager_execution, tfe-era eager training, compat.v2 summaries, checkpoints",
          [("tf.keras.datasets.mnist.load_data()",
            "__import__('_corpus_data').mnist_load_data()"),
           ("for i in range(300):", "for i in range(30):"), ("steps = 200", "steps = 5")]),
    entry("tf1_docs_r1_guide_keras", "tf1", "tfdocs", DOCS + "r1/guide/keras.ipynb",
          "tf.keras in TF1: Sequential/functional/subclassed, fit on arrays and datasets, "
          "callbacks, save/load, to_json/to_yaml",
          [("epochs=10", "epochs=1"), ("epochs=5", "epochs=1")]),
    entry("tf1_docs_r1_guide_autograph", "tf1", "tfdocs", DOCS + "r1/guide/autograph.ipynb",
          "tf.autograph.to_code, tf.function in TF1 graphs with Session, tf.range loops",
          [("tf.keras.datasets.mnist.load_data()",
            "__import__('_corpus_data').mnist_load_data()"),
           ("max_steps=500", "max_steps=20")]),
    entry("tf1_docs_r1_automatic_differentiation", "tf1", "tfdocs",
          DOCS + "r1/tutorials/eager/automatic_differentiation.ipynb",
          "eager GradientTape, persistent tapes, higher-order gradients"),
    entry("tf1_docs_r1_custom_layers", "tf1", "tfdocs",
          DOCS + "r1/tutorials/eager/custom_layers.ipynb", "custom keras Layer, ResNet block"),
    entry("tf1_docs_r1_custom_training", "tf1", "tfdocs",
          DOCS + "r1/tutorials/eager/custom_training.ipynb",
          "eager linear model, Variables, manual gradient step"),
    entry("tf1_docs_r1_eager_basics", "tf1", "tfdocs",
          DOCS + "r1/tutorials/eager/eager_basics.ipynb",
          "eager tensors, numpy interop, devices, TextLineDataset"),
    entry("tf1_docs_r1_basic_classification", "tf1", "tfdocs",
          DOCS + "r1/tutorials/keras/basic_classification.ipynb",
          "keras Sequential on fashion-MNIST, fit/evaluate/predict",
          [("fashion_mnist.load_data()",
            "__import__('_corpus_data').fashion_mnist_load_data()"),
           ("epochs=5", "epochs=1")]),
    entry("tf1_docs_r1_save_and_restore_models", "tf1", "tfdocs",
          DOCS + "r1/tutorials/keras/save_and_restore_models.ipynb",
          "ModelCheckpoint with period, latest_checkpoint, save_weights, HDF5 and SavedModel",
          [("tf.keras.datasets.mnist.load_data()",
            "__import__('_corpus_data').mnist_load_data()"),
           ("epochs = 10", "epochs = 1"), ("epochs = 50", "epochs = 5")]),
    entry("tf1_docs_r1_unicode", "tf1", "tfdocs",
          DOCS + "r1/tutorials/representation/unicode.ipynb",
          "tf.strings.unicode_decode/encode/split/script, ragged results"),
    entry("tf1_nlintz_00_multiply", "tf1", "nlintz", "00_multiply.py",
          "placeholder multiply in a Session"),
    entry("tf1_nlintz_01_linear_regression", "tf1", "nlintz", "01_linear_regression.py",
          "GradientDescentOptimizer, per-sample feeds"),
    entry("tf1_nlintz_02_logistic_regression", "tf1", "nlintz", "02_logistic_regression.py",
          "softmax regression on MNIST",
          [MNIST_TF1, ("for i in range(100):", "for i in range(1):")]),
    entry("tf1_nlintz_03_net", "tf1", "nlintz", "03_net.py", "one hidden layer, sigmoid",
          [MNIST_TF1, ("for i in range(100):", "for i in range(1):")]),
    entry("tf1_nlintz_04_modern_net", "tf1", "nlintz", "04_modern_net.py",
          "ReLU, dropout keep_prob placeholders, RMSProp",
          [MNIST_TF1, ("for i in range(100):", "for i in range(1):")]),
    entry("tf1_nlintz_05_convolutional_net", "tf1", "nlintz", "05_convolutional_net.py",
          "conv2d/max_pool/dropout, RMSProp",
          [MNIST_TF1, ("for i in range(100):", "for i in range(1):")]),
    entry("tf1_nlintz_06_autoencoder", "tf1", "nlintz", "06_autoencoder.py",
          "denoising autoencoder, tied weights",
          [MNIST_TF1, ("for i in range(100):", "for i in range(1):")]),
    entry("tf1_nlintz_07_lstm", "tf1", "nlintz", "07_lstm.py",
          "contrib.rnn BasicLSTMCell, static_rnn",
          [MNIST_TF1, ("for i in range(100):", "for i in range(1):")]),
    entry("tf1_nlintz_08_word2vec", "tf1", "nlintz", "08_word2vec.py",
          "embedding_lookup, nce_loss, toy corpus"),
    entry("tf1_nlintz_09_tensorboard", "tf1", "nlintz", "09_tensorboard.py",
          "name_scope, histogram/scalar summaries, FileWriter",
          [MNIST_TF1, ("for i in range(100):", "for i in range(1):")]),
    entry("tf1_nlintz_10_save_restore_net", "tf1", "nlintz", "10_save_restore_net.py",
          "Saver with global_step, get_checkpoint_state, Variable.eval",
          [MNIST_TF1, ("for i in range(start, 100):", "for i in range(start, 2):")]),
    entry("tf1_nlintz_11_gan", "tf1", "nlintz", "11_gan.py",
          "GAN with tf.layers-free variables, var_list",
          [MNIST_TF1, ("for i in range(200):", "for i in range(2):")]),
]

# Root causes, found by reading each failure's traceback and the script (by hand, after a
# corpus run). WHY maps an entry to a cause; the table shows it where either run fails and
# falls back to the last error line where an entry has none.
CAUSES = {
    "saved_model_custom_gradient": (
        "tf.saved_model.save of a tf.function with a tf.custom_gradient: tfcompat's saved "
        "functions (torch.export programs) cannot keep the custom gradient, so saving "
        "refuses; its TensorSpec(None) input (unknown rank) could not be saved either"),
    "prefetch_abort": ("tf.data: a shuffle(...).prefetch(n) pipeline iterated only in part "
                      "left its daemon threads running torch ops at interpreter exit, which "
                      "aborted the process (status 134); fixed: pipeline threads are stopped "
                      "and joined at exit"),
    "trace_type": "tf.types.experimental.TraceType (user-defined trace types for "
                  "tf.function arguments, __tf_tracing_type__) not implemented",
    "ragged": "tf.ragged / tf.RaggedTensor not implemented",
    "virtual_devices": "tf.distribute.MirroredStrategy over logical CPUs in one process: TF "
                       "makes one replica per logical CPU, tfcompat one replica per process "
                       "(it says to launch one process per replica)",
    "checkpoint_list_deferred": "tf.train.Checkpoint: a variable appended to a tracked list "
                                "after restore() is not restored (TF restores it on append)",
    "gradient_not_registered": "tape.gradient through tf.image.adjust_contrast returns "
                               "gradients; TF raises LookupError (no gradient for "
                               "AdjustContrastv2), which the guide asserts",
    "keras_package": ("tf.profiler.experimental.start / stop not implemented (`import "
                     "keras` now gives tf.keras); real TF 2.21 fails later (Keras 2 cannot "
                     "reload the notebook's custom model class)"),
    "unknown_dim_slice": "X[1024:2048] on a placeholder's unknown batch dim is shaped from the "
                         "dim's small stand-in size, giving 0 rows, so "
                         "contrib.layers.flatten's reshape(-1) fails while the graph is built",
    "tfe_network": "tf.contrib.eager.Network (tfe.Network) not implemented",
    "contrib_factorization": "tf.contrib.factorization (KMeans) not implemented; gone from "
                             "TF 2 too",
    "contrib_tensor_forest": "tf.contrib.tensor_forest not implemented; gone from TF 2 too",
    "contrib_boosted_trees": "tf.contrib.boosted_trees not implemented; gone from TF 2 too",
    "boosted_trees_estimator": "tf.estimator.BoostedTreesClassifier / BoostedTreesRegressor "
                               "not implemented; TF 2.21 has no tf.estimator at all",
    "py2_dict_values": "script bug (Python 2): `dict.values() + dict.values()`; fails the same "
                       "way under real TF",
    "numpy2_newshape": "script calls np.reshape(x, newshape=...), removed in numpy 2; fails "
                       "the same way under real TF (environment, not TF)",
    "no_gpu_hard_placement": "real TF: Session without allow_soft_placement cannot place "
                             "ops on the missing /gpu:0 (InvalidArgumentError); tfcompat "
                             "places them softly on the CPU",
    "compat_v1_version": ("tf.keras.estimator.model_to_estimator not implemented "
                         "(tf.compat.v1.__version__ and tf.keras.__version__ now exist); real "
                         "TF 2.21 fails guide/keras on tf.keras.__version__ of its tf_keras v1 "
                         "API"),
    "runner_graph_mode_compat_v1": ("tf.autograph.experimental.Feature options (assert "
                                    "statements, builtin print, list append, equality "
                                    "operators) not implemented; `continue`/`break` under a "
                                    "tensor if and the runner's mode now work as under TF2"),
    "unicode_ragged": "tf.strings.unicode_decode / unicode_encode / unicode_split (and the "
                      "tf.RaggedTensor results they give) not implemented",
    "nan_histogram": "real TF: 'Nan in summary histogram' (log of a 0 softmax on the "
                     "synthetic data); tfcompat writes the NaN histogram",
}

WHY = {
    "tf2_aymeric_logistic_regression": "prefetch_abort",
    "tf1_aymeric_logistic_regression_eager": "prefetch_abort",
    "tf2_aymeric_gradient_boosted_trees": "boosted_trees_estimator",
    "tf2_aymeric_autoencoder": "py2_dict_values",
    "tf2_aymeric_tensorboard": "py2_dict_values",
    "tf2_guide_advanced_autodiff": "saved_model_custom_gradient",
    "tf2_guide_autodiff": "gradient_not_registered",
    "tf2_guide_checkpoint": "checkpoint_list_deferred",
    "tf2_guide_function": "trace_type",
    "tf2_guide_intro_to_modules": "keras_package",
    "tf2_guide_random_numbers": "virtual_devices",
    "tf2_distribute_input": "virtual_devices",
    "tf2_guide_tensor": "ragged",
    "tf1_aymeric_kmeans": "contrib_factorization",
    "tf1_aymeric_random_forest": "contrib_tensor_forest",
    "tf1_aymeric_gbdt": "contrib_boosted_trees",
    "tf1_aymeric_dcgan": "numpy2_newshape",
    "tf1_aymeric_gan": "numpy2_newshape",
    "tf1_aymeric_neural_network_eager": "tfe_network",
    "tf1_aymeric_multigpu_cnn": "unknown_dim_slice",
    "tf1_aymeric_multigpu_basics": "no_gpu_hard_placement",
    "tf1_aymeric_tensorboard_advanced": "nan_histogram",
    "tf1_docs_r1_guide_keras": "compat_v1_version",
    "tf1_docs_r1_basic_classification": "compat_v1_version",
    "tf1_docs_r1_save_and_restore_models": "compat_v1_version",
    "tf1_docs_r1_guide_eager": "runner_graph_mode_compat_v1",
    "tf1_docs_r1_guide_autograph": "runner_graph_mode_compat_v1",
    "tf1_docs_r1_unicode": "unicode_ragged",
}

RESULTS_PATH = os.path.join(REPO_ROOT, "scripts", "compat_corpus_results.json")
TABLE_PATH = os.path.join(REPO_ROOT, "docs", "compatibility.md")

TABLE_HEADER = """# Real-script compatibility

Public TensorFlow scripts run unchanged except for offline patches (synthetic data of the
real shapes instead of downloads, fewer steps/epochs, no plotting), under real TensorFlow
%(tf_version)s (side venv, `TF_USE_LEGACY_KERAS=1`, i.e. Keras 2) and under
`python -m tfcompat`. Generated by `python scripts/compat_corpus.py` (manifest, patches and
sources are in that file; raw results in `scripts/compat_corpus_results.json`).

TF1-era scripts cannot run on an installable real TF 1.x (Python 3.11): their real-TF column
is the script run under TF 2 with the single patch `import tensorflow as tf` ->
`import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()`, and reads
`tf1 (not installable)` when that still fails (e.g. `tf.contrib`). "ok" means exit status 0.
"""


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[],
                        help="entry id (repeatable, or comma-separated)")
    parser.add_argument("--tfcompat-only", action="store_true",
                        help="run only under tfcompat; keep saved real-TF results")
    parser.add_argument("--tf-only", action="store_true", help="run only under real TF")
    parser.add_argument("--table-only", action="store_true",
                        help="render docs/compatibility.md from the saved results")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (default 1)")
    parser.add_argument("--json", action="store_true", help="print this run's results as JSON")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per run")
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("--work-dir", default="/tmp/compat_corpus")
    parser.add_argument("--tf-python", default="/work/tfvenv/bin/python")
    parser.add_argument("--tf-version", default="2.21.0 (tensorflow-cpu, tf-keras 2.21.0)")
    parser.add_argument("--tfcompat-python", default=os.path.join(REPO_ROOT, ".venv", "bin",
                                                                  "python"))
    return parser.parse_args(argv)


def main(argv=None):
    options = parse_args(sys.argv[1:] if argv is None else argv)
    wanted = {name for names in options.only for name in names.split(",") if name}
    unknown = wanted - {item.id for item in CORPUS}
    if unknown:
        sys.exit("unknown corpus ids: %s" % ", ".join(sorted(unknown)))
    entries = [item for item in CORPUS if not wanted or item.id in wanted]
    results = load_results(RESULTS_PATH)
    if not options.table_only:
        runtimes = (["tf"] if not options.tfcompat_only else []) + \
                   (["tfcompat"] if not options.tf_only else [])
        this_run = run_corpus(entries, runtimes, options, SOURCES, {})
        for entry_id, by_runtime in this_run.items():
            results.setdefault(entry_id, {}).update(by_runtime)
        save_results(RESULTS_PATH, results)
        if options.json:
            json.dump(this_run, sys.stdout, indent=1, sort_keys=True)
            print()
    with open(TABLE_PATH, "w") as table:
        table.write(render_table(CORPUS, SOURCES, results, WHY, CAUSES,
                                 TABLE_HEADER % {"tf_version": options.tf_version}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
