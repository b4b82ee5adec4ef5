"""`tf.keras.utils`: to_categorical, normalize, get_file, Sequence, pad_sequences, custom
objects and (de)serialization, get_source_inputs, plot_model (the registry fills the
namespace; `tfcompat/keras/__init__.py` imports the modules)."""
