"""`tfe.Network` and `tfe.Sequential` (tf.contrib.eager, TF 1.4-1.14; deprecated there): a
`tf.layers.Layer` composed of the layers it tracks with `track_layer`.

Naming follows TF's network.py: an anonymous Network is named after its class ("my_model",
"my_model_1"), its variables live under its own variable scope and each tracked layer under
`<network scope>/<layer name>`, where anonymous layers are renamed to be unique within the
Network ("dense", "dense_1"), so variables read 'my_model/dense_1/kernel:0'. Sub-Networks
nest their scopes the same way. Weights are those of the tracked layers, in tracking order.
`save_network_checkpoint` / `restore_network_checkpoint` (and the deprecated methods
`Network.save` / `Network.restore`) name variables in the checkpoint without the Network's
own prefix ('dense_1/kernel'); restoring a Network not built yet gives its variables the
checkpoint's values when they are created (eager mode; in graph mode the Network must be built
first, else NotImplementedError).
"""
import collections
import inspect
import os
import weakref

from tfcompat._api import tf_export
from tfcompat.framework import context
from tfcompat.keras import backend
from tfcompat.layers import base
from tfcompat.train import saver as train_saver
from tfcompat.train import training_util
from tfcompat.variable_scope import VariableScope, get_variable_scope, variable_scope
from tfcompat.variables import EAGER_CREATION_HOOKS
from tfcompat.framework.default_session import get_default_session


def _is_anonymous(layer):
    """True when `layer` was named after its class rather than by its creator."""
    if isinstance(layer, Network):
        return layer._anonymous
    return layer._base_name == backend.to_snake_case(type(layer).__name__)


def _parent(layer):
    reference = getattr(layer, "_first_parent", None)
    return reference() if reference is not None else None


@tf_export("contrib.eager.Network")
class Network(base.Layer):
    """A Layer made of tracked Layers; subclasses build them in `__init__` with
    `self.track_layer(...)` and use them in `call`."""

    def __init__(self, name=None):
        if isinstance(name, VariableScope):
            raise ValueError("VariableScopes are not valid Network names.")
        if name is not None and "/" in name:
            raise ValueError("Forward slashes ('/') are not allowed in Network names.")
        self._anonymous = not name
        super(Network, self).__init__(name=name)
        self._layers = []
        self._sub_layer_name_uids = collections.defaultdict(int)
        self._owned_layers = {}
        self._first_parent = None
        self._default_parent_variable_scope = get_variable_scope()

    def _init_set_name(self, name, zero_based=True):
        if name:
            self._name = self._base_name = name
        else:
            self._base_name = backend.to_snake_case(type(self).__name__)
            self._name = backend.unique_object_name(self._base_name, zero_based=True)

    def _unique_sublayer_name(self, base_name):
        while True:
            number = self._sub_layer_name_uids[base_name]
            self._sub_layer_name_uids[base_name] += 1
            name = base_name + "_" + str(number) if number else base_name
            if name not in self._owned_layers:
                return name

    def track_layer(self, layer):
        """Track `layer` (a `tf.layers.Layer`, Networks included): its weights become this
        Network's and its variables are named under this Network's scope. Returns `layer`."""
        if not hasattr(self, "_layers"):
            raise RuntimeError("Need to call Network.__init__ before adding layers")
        if not isinstance(layer, base.Layer):
            raise TypeError("Network.track_layer() passed type %s, not a tf.layers.Layer"
                            % (type(layer),))
        if not layer.built and _parent(layer) is None:
            if _is_anonymous(layer):
                layer._name = self._unique_sublayer_name(layer._base_name)
            layer._first_parent = weakref.ref(self)
            if layer.name in self._owned_layers:
                if self._owned_layers[layer.name] is layer:
                    return layer
                raise ValueError("Attempt to add two Layers with the name '%s' to the same "
                                 "Network." % layer.name)
            self._owned_layers[layer.name] = layer
            if self._scope is not None:
                self._set_sublayer_scope(layer)
        self._layers.append(layer)
        return layer

    def _set_scope(self, scope=None):
        """This Network's variable scope: under its first parent's, else under the scope it
        was created in; then its layers' scopes beneath it."""
        if self._scope is not None:
            return
        if scope is not None:
            raise ValueError("Networks may not be created with explicit scopes.")
        parent = _parent(self)
        if parent is not None:
            parent._set_scope()
            parent_scope = parent._scope
        else:
            parent_scope = self._default_parent_variable_scope
        with variable_scope(parent_scope):
            with variable_scope(None, default_name=self._name) as own_scope:
                self._scope = own_scope
        prefix, _, suffix = own_scope.name.rpartition("/")
        if suffix != self._name:
            raise ValueError("A Network named '%s' already exists (or a variable_scope was "
                             "created with this name). Names must be unique." % self._name)
        if parent is None and prefix:
            raise ValueError("Creating Networks inside named variable_scopes is currently not "
                             "supported (to ensure that variable names match the names of "
                             "Networks in which they were first created). To set options, "
                             "try `with tf.variable_scope(''):`.")
        for layer in self._owned_layers.values():
            if not isinstance(layer, Network):
                self._set_sublayer_scope(layer)

    def _set_sublayer_scope(self, layer):
        if layer._scope is None and not isinstance(layer, Network):
            with variable_scope(self._scope):
                with variable_scope(None, default_name=layer.name) as layer_scope:
                    layer._scope = layer_scope

    def get_layer(self, name=None, index=None):
        """A tracked layer by name (the first with that name) or by tracking index."""
        if index is not None:
            if name is not None:
                raise ValueError("Exactly one of 'index' or 'name' must be provided")
            if len(self._layers) <= index:
                raise ValueError("Was asked to retrieve layer at index %d but model only has "
                                 "%d layers." % (index, len(self._layers)))
            return self._layers[index]
        if not name:
            raise ValueError("Provide either a layer name or layer index.")
        for layer in self._layers:
            if layer.name == name:
                return layer
        raise ValueError("No such layer: " + name)

    @property
    def layers(self):
        return self._layers

    @property
    def weights(self):
        return [w for layer in self._layers for w in layer.weights]

    @property
    def trainable_weights(self):
        return [w for layer in self._layers for w in layer.trainable_weights]

    @property
    def non_trainable_weights(self):
        return [w for layer in self._layers for w in layer.non_trainable_weights]

    @property
    def variables(self):
        return self.weights

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    @property
    def trainable(self):
        return True

    @trainable.setter
    def trainable(self, value):
        if not value:
            raise AttributeError("cannot mark Network as not trainable")

    def add_variable(self, name, shape, dtype=None, initializer=None, regularizer=None,
                     trainable=True, constraint=None):
        raise RuntimeError("add_variable not supported in Network class yet.")

    def save(self, save_path, global_step=None, map_func=None):
        """Deprecated: `save_network_checkpoint(self, ...)`."""
        return save_network_checkpoint(self, save_path, global_step, map_func)

    def restore(self, save_path, map_func=None):
        """Deprecated: `restore_network_checkpoint(self, ...)`."""
        return restore_network_checkpoint(self, save_path, map_func)

    def _strip_variable_prefix(self, variable_name):
        prefix = self.scope_name + "/"
        return variable_name[len(prefix):] if variable_name.startswith(prefix) \
            else variable_name

    def _variables_by_checkpoint_name(self, map_func):
        """{checkpoint name: variable}; ValueError when two variables map to one name."""
        by_name = {}
        for variable in self.variables:
            name = map_func(variable._shared_name)
            if by_name.setdefault(name, variable) is not variable:
                raise ValueError(
                    "The variable name mapping for Network '%s' resulted in two variables "
                    "named '%s' (originally '%s' and '%s'). Pass a map_func keeping them "
                    "apart, e.g. `map_func=lambda n: n` for fully qualified names."
                    % (self.name, name, by_name[name]._shared_name, variable._shared_name))
        return by_name


def _session():
    if context.executing_eagerly():
        return None
    return get_default_session()


@tf_export("contrib.eager.save_network_checkpoint")
def save_network_checkpoint(network, save_path, global_step=None, map_func=None):
    """Save `network`'s variables under `save_path` (a prefix, or a directory: then
    `<dir>/<network name>`), named without the Network's prefix unless `map_func` maps them;
    `global_step` defaults to the global step if there is one. Returns the prefix written."""
    if not network.built:
        raise ValueError("Attempt to save the Network before it was first called. This means "
                         "variables have not yet been created, so there is nothing to save.")
    network._set_scope()
    if global_step is None:
        global_step = training_util.get_global_step()
    if os.path.isdir(save_path):
        save_path = os.path.join(save_path, network.name)
    variables = network._variables_by_checkpoint_name(
        map_func or network._strip_variable_prefix)
    return train_saver.Saver(variables).save(_session(), save_path, write_meta_graph=False,
                                             global_step=global_step)


class _RestoreNetworkOnCreate(object):
    """Gives variables created later under a Network's scope their checkpoint values."""

    def __init__(self, prefix, map_func, values):
        self._prefix, self._map_func, self._values = prefix, map_func, values

    def __call__(self, variable):
        if not variable._shared_name.startswith(self._prefix):
            return
        value = self._values.pop(self._map_func(variable._shared_name), None)
        if value is not None:
            variable.assign(value)
        if not self._values:
            EAGER_CREATION_HOOKS.remove(self)


@tf_export("contrib.eager.restore_network_checkpoint")
def restore_network_checkpoint(network, save_path, map_func=None):
    """Restore `network` from `save_path` (what `save_network_checkpoint` returned, or a
    directory): existing variables now, the others as they are created."""
    network._set_scope()
    if os.path.isdir(save_path):
        save_path = os.path.join(save_path, network.name)
    map_func = map_func or network._strip_variable_prefix
    existing = network._variables_by_checkpoint_name(map_func)
    if existing:
        train_saver.Saver(existing).restore(_session(), save_path)
    reader = train_saver.load_checkpoint(save_path)
    pending = {name: reader.get_tensor(name)
               for name, _ in train_saver.list_variables(save_path) if name not in existing}
    if not pending or network.built:
        return
    if not context.executing_eagerly():
        raise NotImplementedError("tfe.Network.restore of a Network not built yet is not "
                                  "implemented by tfcompat in graph mode; call the Network "
                                  "once, then restore")
    EAGER_CREATION_HOOKS.append(
        _RestoreNetworkOnCreate(network.scope_name + "/", map_func, pending))


@tf_export("contrib.eager.Sequential")
class Sequential(Network):
    """A Network calling its layers (or plain callables) in the order they were added;
    `training` goes to those whose call takes it."""

    def __init__(self, layers_funcs=None, name=None):
        super(Sequential, self).__init__(name=name)
        self._layers_funcs = []
        for layer_func in layers_funcs or ():
            self.add(layer_func)

    def add(self, layer_func):
        if isinstance(layer_func, base.Layer):
            self.track_layer(layer_func)
            takes = inspect.signature(layer_func.call).parameters
        elif callable(layer_func):
            takes = inspect.signature(layer_func).parameters
        else:
            raise TypeError("Sequential.add() takes only tf.layers.Layer objects or "
                            "callables; not '%s' of type '%s'." % (layer_func, type(layer_func)))
        self._layers_funcs.append(("training" in takes, layer_func))

    def call(self, inputs, training=None):
        for takes_training, layer_func in self._layers_funcs:
            if training is not None and takes_training:
                inputs = layer_func(inputs, training)
            else:
                inputs = layer_func(inputs)
        return inputs
