"""MultiHeadAttention, Attention and AdditiveAttention against real tf.keras 2 outputs for the
same inputs and weights (tests/fixtures/keras_preprocessing/attention.json, written by
make_fixtures.py there): Keras 2.15's weight names and shapes, masks, causal masks, scores,
and the layers in functional models, `fit` and get_config / from_config."""
import json
import os

import numpy as np
import pytest

import tfcompat as tf

keras = tf.keras
pytestmark = pytest.mark.usefixtures("fresh_names")

with open(os.path.join(os.path.dirname(__file__), "fixtures", "keras_preprocessing",
                       "attention.json")) as f:
    FIXTURE = json.load(f)
QUERY, VALUE, KEY = (np.float32(FIXTURE[k]) for k in ("query", "value", "key"))


def close(got, want, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, dtype=np.float64),
                               rtol=1e-5, atol=atol)


def mha_call(layer, case):
    call = case["call"]
    args = {"query": QUERY, "value": QUERY if call.get("self") else VALUE}
    if call.get("key"):
        args["key"] = KEY
    if call.get("attention_mask"):
        args["attention_mask"] = np.array(FIXTURE["mask"])
    return layer(return_attention_scores=True,
                 use_causal_mask=call.get("use_causal_mask", False), **args)


@pytest.mark.parametrize("case", FIXTURE["mha"], ids=["plain", "key_mask_output", "causal"])
def test_multi_head_attention_equals_tf(case):
    layer = keras.layers.MultiHeadAttention(**case["kwargs"])
    mha_call(layer, case)
    # TF numbered its layers multi_head_attention, _1, _2 in one session
    assert [(w.name, w.shape.as_list()) for w in layer.weights] == [
        ("multi_head_attention/" + name.split("/", 1)[1], list(np.shape(value)))
        for name, value in case["weights"]]
    layer.set_weights([np.float32(value) for _, value in case["weights"]])
    output, scores = mha_call(layer, case)
    close(output, case["output"])
    close(scores, case["scores"])


def test_multi_head_attention_over_two_axes_equals_tf():
    images = np.float32(FIXTURE["images"])
    layer = keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2))
    layer(images, images)
    layer.set_weights([np.float32(w) for w in FIXTURE["axes_weights"]])
    close(layer(images, images), FIXTURE["axes_output"])


def test_multi_head_attention_config_round_trip_makes_the_weights():
    case = FIXTURE["mha"][1]
    layer = keras.layers.MultiHeadAttention(**case["kwargs"])
    mha_call(layer, case)
    config = layer.get_config()
    assert config["query_shape"] == [2, 3, 4] and config["key_shape"] == [2, 5, 4]
    assert config["attention_axes"] == (1,) and config["output_shape"] == 6
    copy = keras.layers.MultiHeadAttention.from_config(config)
    assert copy.weights == []   # Keras 2 too: the projections build on the first call
    mha_call(copy, case)
    copy.set_weights([np.float32(value) for _, value in case["weights"]])
    close(mha_call(copy, case)[0], case["output"])


def test_multi_head_attention_keras_masks_and_a_trained_transformer_block():
    tokens = keras.Input((6,), dtype="int32")
    embedded = keras.layers.Embedding(20, 8, mask_zero=True)(tokens)
    attended = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, dropout=0.1)(
        embedded, embedded)
    pooled = keras.layers.GlobalAveragePooling1D()(attended)
    model = keras.Model(tokens, keras.layers.Dense(1)(pooled))
    model.compile("adam", "mse")
    x = np.random.RandomState(0).randint(1, 20, size=(32, 6))
    x[:, 4:] = 0
    y = np.float32(x[:, :1] > 10)
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert len(history.history["loss"]) == 2
    # padded keys get no attention: changing what sits at padded positions changes nothing
    mha = model.layers[2]
    emb = model.layers[1](x[:2])
    emb_changed = model.layers[1](np.where(x[:2] == 0, 0, x[:2]))
    close(mha(emb, emb), mha(emb_changed, emb_changed))
    reloaded = keras.Model.from_config(model.get_config())
    reloaded.set_weights(model.get_weights())
    close(reloaded.predict(x[:4]), model.predict(x[:4]))


@pytest.mark.parametrize("name", sorted(FIXTURE["dense"]))
def test_dense_attention_equals_tf(name):
    case = FIXTURE["dense"][name]
    layer = {"dot": lambda: keras.layers.Attention(),
             "dot_scaled": lambda: keras.layers.Attention(use_scale=True),
             "concat": lambda: keras.layers.Attention(score_mode="concat", use_scale=True),
             "additive": lambda: keras.layers.AdditiveAttention(),
             "additive_unscaled": lambda: keras.layers.AdditiveAttention(use_scale=False)}[name]()
    masks = [np.array(FIXTURE["query_mask"]), np.array(FIXTURE["value_mask"])]
    layer([QUERY, VALUE, KEY], mask=masks)
    layer.set_weights([np.float32(w) for w in case["weights"]])
    output, scores = layer([QUERY, VALUE, KEY], mask=masks, return_attention_scores=True)
    close(output, case["output"])
    close(scores, case["scores"])
    causal, causal_scores = layer([QUERY, VALUE], return_attention_scores=True,
                                  use_causal_mask=True)
    close(causal, case["causal"])
    close(causal_scores, case["causal_scores"])
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()


def test_dense_attention_in_a_functional_model_and_bad_calls():
    query_in, value_in = keras.Input((3, 4)), keras.Input((5, 4))
    out = keras.layers.AdditiveAttention()([query_in, value_in])
    model = keras.Model([query_in, value_in], out)
    assert model.predict([QUERY, VALUE]).shape == (2, 3, 4)
    with pytest.raises(ValueError, match="list of inputs"):
        keras.layers.Attention()(QUERY)
    with pytest.raises(ValueError, match="score_mode"):
        keras.layers.Attention(score_mode="add")


def test_attention_layers_in_a_tf1_graph_equal_eager():
    tf1 = tf.compat.v1
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    additive = keras.layers.AdditiveAttention()
    eager_mha = mha(QUERY, VALUE, use_causal_mask=True)
    eager_additive = additive([QUERY, VALUE])
    with tf.Graph().as_default():
        query = tf1.placeholder(tf.float32, [None, 3, 4])
        value = tf1.placeholder(tf.float32, [None, 5, 4])
        graph_mha = mha(query, value, use_causal_mask=True)
        graph_additive = additive([query, value])
        assert graph_mha.shape.as_list() == [None, 3, 4]
        with tf1.Session() as sess:
            got = sess.run([graph_mha, graph_additive], {query: QUERY, value: VALUE})
    close(got[0], eager_mha)
    close(got[1], eager_additive)


@pytest.mark.parametrize("filename", ["model.h5", "saved_model_dir"])
def test_attention_models_save_and_load(tmp_path, filename):
    query_in, value_in = keras.Input((3, 4)), keras.Input((5, 4))
    attended = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)(query_in, value_in)
    mixed = keras.layers.Attention(use_scale=True)([attended, value_in])
    model = keras.Model([query_in, value_in], mixed)
    path = str(tmp_path / filename)
    model.save(path)
    reloaded = keras.models.load_model(path)
    close(reloaded.predict([QUERY, VALUE]), model.predict([QUERY, VALUE]))


def test_multi_head_attention_robust_masking_matches_additive_masking():
    mask = np.array(FIXTURE["mask"])
    robust = keras.layers.MultiHeadAttention(2, 3, softmax_robust_masking=True)
    plain = keras.layers.MultiHeadAttention(2, 3)
    robust(QUERY, VALUE)
    plain(QUERY, VALUE)
    plain.set_weights(robust.get_weights())
    close(robust(QUERY, VALUE, attention_mask=mask), plain(QUERY, VALUE, attention_mask=mask))
    assert robust.get_config()["softmax_robust_masking"] is True
