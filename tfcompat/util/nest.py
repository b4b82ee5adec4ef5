"""`tf.nest` (and `tf.contrib.framework.nest`): TF's rules for nested structures.

Sequences are lists, tuples, namedtuples and mappings (flattened in sorted key order, rebuilt
with the structure's own key order and type); everything else, None and strings included, is
a leaf. Composite tensors (`expand_composites=True`) are not expanded: it raises.
"""
import collections.abc

from tfcompat._api import tf_export


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


@tf_export("nest.is_nested", "contrib.framework.nest.is_sequence",
           "contrib.framework.nest.is_nested")
def is_nested(seq):
    """True for lists, tuples (namedtuples too) and mappings."""
    return isinstance(seq, (list, tuple, collections.abc.Mapping))


def _children(structure):
    if isinstance(structure, collections.abc.Mapping):
        return [structure[k] for k in _sorted_keys(structure)]
    return list(structure)


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys, got keys %r"
                        % (list(mapping),)) from None


def _check_composites(expand_composites):
    if expand_composites:
        raise NotImplementedError("tf.nest with expand_composites=True is not implemented "
                                  "by tfcompat")


@tf_export("nest.flatten", "contrib.framework.nest.flatten")
def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first (mappings in sorted key order)."""
    _check_composites(expand_composites)
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _rebuild(structure, children):
    if isinstance(structure, collections.abc.Mapping):
        by_key = dict(zip(_sorted_keys(structure), children))
        items = [(k, by_key[k]) for k in structure]
        if isinstance(structure, collections.defaultdict):
            rebuilt = type(structure)(structure.default_factory)
            rebuilt.update(items)
            return rebuilt
        return type(structure)(items)
    if _is_namedtuple(structure):
        return type(structure)(*children)
    return type(structure)(children)


@tf_export("nest.pack_sequence_as", "contrib.framework.nest.pack_sequence_as")
def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` packed into the nesting of `structure` (ValueError on a count
    mismatch)."""
    _check_composites(expand_composites)
    if not is_nested(flat_sequence):
        raise TypeError("Attempted to pack value:\n  %r\ninto a structure, but found "
                        "incompatible type `%s` instead." % (flat_sequence,
                                                             type(flat_sequence).__name__))
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError("The target structure is of type `%s`\n  %r\nHowever the input "
                             "is a sequence (%s) of length %d." % (
                                 type(structure).__name__, structure,
                                 type(flat_sequence).__name__, len(flat_sequence)))
        return flat_sequence[0]
    expected = len(flatten(structure))
    if expected != len(flat_sequence):
        raise ValueError("Could not pack sequence. Structure had %d atoms, but flat_sequence "
                         "had %d items.  Structure: %r, flat_sequence: %r."
                         % (expected, len(flat_sequence), structure, flat_sequence))
    return _pack(structure, iter(flat_sequence))


def _pack(node, leaves):
    """`node` rebuilt with leaves from the iterator `leaves` (module-level recursion: a
    self-calling closure would be a reference cycle keeping the leaves alive)."""
    if not is_nested(node):
        return next(leaves)
    return _rebuild(node, [_pack(child, leaves) for child in _children(node)])


@tf_export("nest.assert_same_structure", "contrib.framework.nest.assert_same_structure")
def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """ValueError if the nestings differ; TypeError if `check_types` and the sequence types
    differ (lists and tuples are different types, as in TF)."""
    _check_composites(expand_composites)
    _compare(nest1, nest2, check_types, nest1, nest2)


def _compare(a, b, check_types, nest1, nest2):
    """Raise as `assert_same_structure` does where `a` and `b` (parts of `nest1` and
    `nest2`) differ; module-level recursion, so no reference cycle holds the leaves."""
    if is_nested(a) != is_nested(b):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         "First structure: %r\n\nSecond structure: %r" % (nest1, nest2))
    if not is_nested(a):
        return
    if check_types and type(a) is not type(b):
        both_mappings = isinstance(a, collections.abc.Mapping) and \
            isinstance(b, collections.abc.Mapping)
        if not both_mappings:
            raise TypeError("The two structures don't have the same sequence type. "
                            "Input structure has type %s, while shallow structure has "
                            "type %s." % (type(a), type(b)))
    if isinstance(a, collections.abc.Mapping) and \
            _sorted_keys(a) != _sorted_keys(b):
        raise ValueError("The two dictionaries don't have the same set of keys. First "
                         "structure has keys %s, while second structure has keys %s."
                         % (list(a), list(b)))
    children_a, children_b = _children(a), _children(b)
    if len(children_a) != len(children_b):
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         "First structure (%d elements): %r\n\nSecond structure (%d "
                         "elements): %r" % (len(children_a), nest1, len(children_b),
                                            nest2))
    for x, y in zip(children_a, children_b):
        _compare(x, y, check_types, nest1, nest2)


@tf_export("nest.map_structure", "contrib.framework.nest.map_structure")
def map_structure(func, *structure, **kwargs):
    """`func` applied to corresponding leaves of the structures; the result has the first
    structure's nesting. Keyword arguments: check_types (default True), expand_composites."""
    if not callable(func):
        raise TypeError("func must be callable, got: %s" % func)
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    _check_composites(kwargs.pop("expand_composites", False))
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         "`expand_composites`, not: `%s`" % "`, `".join(kwargs))
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flat = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flat)])
