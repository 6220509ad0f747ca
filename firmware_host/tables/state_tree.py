"""A controller's whole state as a JSON tree, and back: what a checkpoint holds (docs/checkpoints.md).

:func:`capture` walks an object's attributes and turns them into plain JSON; :func:`restore_into`
puts such a tree back into a freshly built object of the same class. It is generic, so a
controller keeps working when its state moves into collaborators: any attribute of an
allowed type is captured, and anything else is refused by name, never skipped in silence.

The tree, format :data:`FORMAT`:

- ``null``, ``true``/``false``, integers, floats (finite) and strings are themselves;
- a list is a JSON array of trees;
- every other value is a JSON object with one tag: ``{"tuple": [...]}``,
  ``{"dict": [[key, value], ...]}`` (keys of any allowed type, in the dict's order),
  ``{"counter": [[key, count], ...]}`` (a ``collections.Counter``, likewise),
  ``{"set": [...]}`` and ``{"frozenset": [...]}`` (sorted by canonical JSON, so the tree is
  deterministic), ``{"enum": "module:Class.NAME"}``, and ``{"object": [k, v1, v2, ...]}`` for a
  dataclass, a named tuple or a plain object (its instance attributes): ``k`` indexes the
  document's class table, whose entry ``["module:Class", ["field1", "field2", ...]]`` names
  the class and the fields ``v1, v2, ...`` are the values of.

A document is ``{"format": FORMAT, "classes": [...], "root": tree}``.

Only classes of the modules named by :data:`ALLOWED_MODULES` are captured or rebuilt, so a
checkpoint cannot name arbitrary code (it is not pickle). Not captured: attributes a class
lists in its ``NOT_STATE`` class attribute (and its bases': what the constructor sets from the
profile, and per-step scratch), and the ``transitions`` machine's bound triggers (code, not
state; the machine's state is the model's ``state`` string, which is captured).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import json
import math
from collections import Counter
from typing import Any

from transitions import Machine
from transitions.core import Event

from firmware_host.errors import TablehostError

__all__ = ["FORMAT", "ALLOWED_MODULES", "StateTreeError", "capture", "restore_into", "rebuild", "state_fields"]

#: Version of the tree's encoding (above); a checkpoint names it.
FORMAT = 1
#: Modules (and their submodules) whose classes a tree may hold: the rules and the controllers.
ALLOWED_MODULES = ("firmware_host.rules", "firmware_host.tables", "drivers.events")
_TAGS = ("tuple", "dict", "counter", "set", "frozenset", "enum", "object")


class StateTreeError(TablehostError):
    """A value that cannot be captured, or a tree that does not fit the code restoring it."""


def _allowed(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in ALLOWED_MODULES)


#: :func:`_class_name` of each allowed class, by the :data:`ALLOWED_MODULES` it was allowed under.
_NAMES: dict[tuple[type, tuple[str, ...]], str] = {}


def _class_name(cls: type) -> str:
    key = (cls, ALLOWED_MODULES)
    name = _NAMES.get(key)
    if name is not None:
        return name
    if not _allowed(cls.__module__):
        raise StateTreeError(
            f"{cls.__module__}.{cls.__qualname__} is not a class a state tree may hold "
            f"(allowed: {', '.join(ALLOWED_MODULES)})"
        )
    name = _NAMES[key] = f"{cls.__module__}:{cls.__qualname__}"
    return name


#: Where a value is, kept as its parent's place and the step to it, and spelled out
#: (:func:`_spelled`) only in an error message: a capture walks every value of the state.
_Where = str | tuple[Any, str, object]


def _spelled(where: _Where) -> str:
    """The path ``where`` stands for: ``controller.round.wagers[0]``, ``controller.seen key``..."""
    if isinstance(where, str):
        return where
    parent, step, at = where
    path = _spelled(parent)
    return f"{path}[{at!r}]" if step == "[r]" else f"{path}[{at}]" if step == "[]" else f"{path}{step}{at}"


#: :func:`_resolve` of each class name resolved, by the :data:`ALLOWED_MODULES` it was resolved under.
_RESOLVED: dict[tuple[str, tuple[str, ...]], type] = {}


def _resolve(name: object, where: _Where) -> type:
    """The class a tree names, if it is in an allowed module and exists."""
    if isinstance(name, str):
        known = _RESOLVED.get((name, ALLOWED_MODULES))
        if known is not None:
            return known
    if not isinstance(name, str) or ":" not in name:
        raise StateTreeError(f"{_spelled(where)}: {name!r} is not a class name (module:Class)")
    module, qualname = name.split(":", 1)
    if not _allowed(module):
        raise StateTreeError(f"{_spelled(where)}: class {name} is outside {', '.join(ALLOWED_MODULES)}")
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise StateTreeError(f"{_spelled(where)}: class {name} does not exist in this version") from exc
    if not isinstance(found, type):
        raise StateTreeError(f"{_spelled(where)}: {name} is not a class")
    _RESOLVED[name, ALLOWED_MODULES] = found
    return found


@functools.cache
def _not_state(cls: type) -> frozenset[str]:
    """The attribute names ``cls`` and its bases declare are not state (``NOT_STATE``)."""
    names: set[str] = set()
    for base in cls.__mro__:
        names.update(base.__dict__.get("NOT_STATE", ()))
    return frozenset(names)


def _machine_binding(value: object) -> bool:
    """Whether ``value`` is a trigger or test ``transitions`` bound onto its model."""
    return isinstance(value, functools.partial) and isinstance(getattr(value.func, "__self__", None), (Machine, Event))


@functools.cache
def _declared_fields(cls: type) -> tuple[str, ...] | None:
    """The state fields a dataclass or named tuple declares (None: a plain class, whose instance
    attributes are its fields)."""
    if dataclasses.is_dataclass(cls):
        names: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(cls))
    elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
        names = tuple(cls._fields)
    else:
        return None
    skip = _not_state(cls)
    return tuple(name for name in names if name not in skip)


def state_fields(obj: object) -> dict[str, Any]:
    """The attributes of ``obj`` that are its state (see the module docstring), by name."""
    kind: type = type(obj)
    declared = _declared_fields(kind)
    if declared is not None:
        return {name: getattr(obj, name) for name in declared}
    skip = _not_state(kind)
    return {
        name: value
        for name, value in vars(obj).items()
        if name not in skip and not (isinstance(value, functools.partial) and _machine_binding(value))
    }


def _sort_key(tree: Any) -> str:
    return json.dumps(tree, sort_keys=True, separators=(",", ":"))


def capture(value: Any, where: str = "state") -> dict[str, Any]:
    """``value`` as a state document ``{"format", "classes", "root"}`` (see the module docstring).

    :param where: the path of ``value`` for error messages (``controller.round.wagers``).
    :raises StateTreeError: a value of a type the tree does not allow (its path named).
    """
    capturer = _Capturer()
    root = capturer.node(value, where)
    return {"format": FORMAT, "classes": capturer.classes, "root": root}


#: The types whose values are their own trees (exactly these: a subclass may be an enum).
_SELF = (str, int, bool)


class _Capturer:
    """Builds a tree and its class table (each class once, with its field names)."""

    def __init__(self) -> None:
        self.classes: list[list[Any]] = []
        self._index: dict[tuple[type, tuple[str, ...]], int] = {}

    def node(self, value: Any, where: _Where) -> Any:
        cls = type(value)
        if value is None or cls in _SELF:  # most values: exactly these types, so no enum
            return value
        kind = _KINDS.get(cls)
        if kind is None:
            kind = _KINDS[cls] = _kind(cls)
        if kind is _Kind.OBJECT:
            return self._object(value, where)
        if kind is _Kind.ENUM:
            return {"enum": f"{_class_name(cls)}.{value.name}"}
        if kind is _Kind.PLAIN:
            return value
        if kind is _Kind.FLOAT:
            if not math.isfinite(value):
                raise StateTreeError(f"{_spelled(where)}: {value!r} is not a finite number")
            return value
        if kind is _Kind.LIST:  # here and in an object, a plain value is taken without a call
            return [
                item if item is None or type(item) in _SELF else self.node(item, (where, "[]", i))
                for i, item in enumerate(value)
            ]
        if kind is _Kind.TUPLE:
            return {
                "tuple": [
                    item if item is None or type(item) in _SELF else self.node(item, (where, "[]", i))
                    for i, item in enumerate(value)
                ]
            }
        if kind is _Kind.MAPPING:
            return {
                cls.__name__.lower(): [
                    [
                        k if k is None or type(k) in _SELF else self.node(k, (where, " key", "")),
                        v if v is None or type(v) in _SELF else self.node(v, (where, "[r]", k)),
                    ]
                    for k, v in value.items()
                ]
            }
        if kind is _Kind.SET:
            items = sorted((self.node(item, (where, " item", "")) for item in value), key=_sort_key)
            return {cls.__name__: items}
        raise StateTreeError(
            f"{_spelled(where)}: a {cls.__module__}.{cls.__qualname__} cannot be "
            "captured (not a value a state tree allows)"
        )

    def _object(self, value: Any, where: _Where) -> dict[str, list[Any]]:
        """A dataclass, named tuple or plain object: its class's index and its state fields' trees."""
        fields = state_fields(value)
        names = tuple(fields)
        key = (type(value), names)
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.classes)
            self.classes.append([_class_name(type(value)), list(names)])
        return {
            "object": [
                index,
                *[v if v is None or type(v) in _SELF else self.node(v, (where, ".", k)) for k, v in fields.items()],
            ]
        }


class _Kind(enum.Enum):
    """How :meth:`_Capturer.node` captures a value of a type (:func:`_kind`)."""

    PLAIN = "plain"  # a bool, int or str of a subclass that is no enum: itself
    FLOAT = "float"
    ENUM = "enum"
    LIST = "list"
    TUPLE = "tuple"  # a tuple that is no named tuple
    MAPPING = "mapping"  # exactly a dict or a Counter
    SET = "set"  # exactly a set or a frozenset
    OBJECT = "object"  # a dataclass, a named tuple or a plain object
    REFUSED = "refused"


#: :func:`_kind` of each type met so far (a type's kind never changes).
_KINDS: dict[type, _Kind] = {}


def _kind(cls: type) -> _Kind:
    """How a value of type ``cls`` is captured, in the order the tree's rules are checked."""
    if issubclass(cls, enum.Enum):  # first: a StrEnum or IntEnum is a str or int too
        return _Kind.ENUM
    if issubclass(cls, (bool, int, str)):
        return _Kind.PLAIN
    if issubclass(cls, float):
        return _Kind.FLOAT
    if issubclass(cls, list):
        return _Kind.LIST
    if issubclass(cls, tuple) and not hasattr(cls, "_fields"):
        return _Kind.TUPLE
    if cls in (dict, Counter):
        return _Kind.MAPPING
    if cls in (set, frozenset):
        return _Kind.SET
    defined = {name for base in cls.__mro__ for name in base.__dict__}  # what its instances have
    callable_ = "__call__" in defined  # callable(value) for a value of the type
    if (
        issubclass(cls, type)
        or callable_
        or not (dataclasses.is_dataclass(cls) or issubclass(cls, tuple) or "__dict__" in defined)
    ):
        return _Kind.REFUSED
    return _Kind.OBJECT


def rebuild(document: dict[str, Any], where: str = "state") -> Any:
    """The value a document made by :func:`capture` stands for (a new object graph).

    :raises StateTreeError: a malformed document, or a class this version does not have or
        that has other fields.
    """
    return _Rebuilder(document, where).value(document.get("root"), where)


def restore_into(obj: object, document: dict[str, Any], where: str = "state") -> None:
    """Put the state ``document`` (from :func:`capture` of an object of the same class) into ``obj``.

    ``obj`` is freshly built (from the profile), so what is not state stays as built; nested
    objects that declare ``NOT_STATE`` are restored into the fresh ones in the same way.

    :raises StateTreeError: another class, other state fields than ``obj`` has, a malformed tree.
    """
    _Rebuilder(document, where).into(obj, document.get("root"), where)


class _Rebuilder:
    """Reads a document's class table, then its nodes."""

    def __init__(self, document: Any, where: str) -> None:
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            found = document.get("format") if isinstance(document, dict) else document
            raise StateTreeError(f"{_spelled(where)}: state format {found!r}; this version reads format {FORMAT}")
        table = document.get("classes")
        if not isinstance(table, list):
            raise StateTreeError(f"{_spelled(where)}: no class table")
        self.classes: list[tuple[type, list[str]]] = []
        for i, entry in enumerate(table):
            if not (
                isinstance(entry, list)
                and len(entry) == 2
                and isinstance(entry[1], list)
                and all(isinstance(n, str) for n in entry[1])
            ):
                raise StateTreeError(f"{_spelled(where)}: class table entry {i} is not [name, [fields]]")
            self.classes.append((_resolve(entry[0], f"{where} class {i}"), entry[1]))

    def value(self, tree: Any, where: _Where) -> Any:
        if tree is None or isinstance(tree, (bool, int, float, str)):
            return tree
        if isinstance(tree, list):
            return [self.value(item, (where, "[]", i)) for i, item in enumerate(tree)]
        tag = _tag(tree, where)
        body = tree[tag]
        if tag == "object":
            cls, fields = self._fields(body, where)
            if issubclass(cls, tuple):  # a NamedTuple: immutable, built from its fields
                if list(fields) != list(getattr(cls, "_fields", ())):
                    raise StateTreeError(f"{_spelled(where)}: {cls.__qualname__} has other fields in this version")
                return cls(**{k: self.value(v, (where, ".", k)) for k, v in fields.items()})
            obj = cls.__new__(cls)
            self._set(obj, fields, where, fresh=None)
            return obj
        if tag == "enum":
            cls_name, _, member = str(body).rpartition(".")
            cls = _resolve(cls_name, where)
            try:
                return cls[member]  # type: ignore[index]
            except KeyError as exc:
                raise StateTreeError(f"{_spelled(where)}: {cls_name} has no member {member!r} in this version") from exc
        if not isinstance(body, list):
            raise StateTreeError(f"{_spelled(where)}: expected a list of items")
        if tag in ("dict", "counter"):
            pairs = [_pair(item, (where, "[]", i)) for i, item in enumerate(body)]
            mapping = {self.value(k, (where, " key", "")): self.value(v, (where, "[r]", k)) for k, v in pairs}
            return mapping if tag == "dict" else Counter(mapping)
        values = [self.value(item, (where, "[]", i)) for i, item in enumerate(body)]
        return {"tuple": tuple, "set": set, "frozenset": frozenset}[tag](values)

    def into(self, obj: object, tree: Any, where: _Where) -> None:
        if _tag(tree, where) != "object":
            raise StateTreeError(f"{_spelled(where)}: the tree is not a {type(obj).__qualname__}")
        cls, fields = self._fields(tree["object"], where)
        if cls is not type(obj):
            raise StateTreeError(f"{_spelled(where)}: the tree is a {cls.__qualname__}, not a {type(obj).__qualname__}")
        self._set(obj, fields, where, fresh=state_fields(obj))

    def _fields(self, body: Any, where: _Where) -> tuple[type, dict[str, Any]]:
        if not (isinstance(body, list) and body and isinstance(body[0], int) and 0 <= body[0] < len(self.classes)):
            raise StateTreeError(f"{_spelled(where)}: an object node names no class of the table")
        cls, names = self.classes[body[0]]
        if len(body) - 1 != len(names):
            raise StateTreeError(
                f"{_spelled(where)}: {cls.__qualname__}: {len(body) - 1} values for {len(names)} fields"
            )
        return cls, dict(zip(names, body[1:]))

    def _set(self, obj: object, fields: dict[str, Any], where: _Where, fresh: dict[str, Any] | None) -> None:
        cls: type = type(obj)
        expected = set(fresh) if fresh is not None else _expected_fields(cls)
        if expected is not None and set(fields) != expected:
            missing, extra = sorted(expected - set(fields)), sorted(set(fields) - expected)
            raise StateTreeError(
                f"{_spelled(where)}: {cls.__qualname__} has other state in this version "
                f"(missing {missing or 'nothing'}, unknown {extra or 'nothing'})"
            )
        for name, subtree in fields.items():
            current = fresh.get(name) if fresh is not None else None
            kind: type = type(current)
            if current is not None and _not_state(kind) and self._is_object_of(subtree, kind):
                self.into(current, subtree, (where, ".", name))
                continue
            object.__setattr__(obj, name, self.value(subtree, (where, ".", name)))

    def _is_object_of(self, tree: Any, cls: type) -> bool:
        if not (isinstance(tree, dict) and isinstance(tree.get("object"), list) and tree["object"]):
            return False
        index = tree["object"][0]
        return isinstance(index, int) and 0 <= index < len(self.classes) and self.classes[index][0] is cls


@functools.cache
def _expected_fields(cls: type) -> frozenset[str] | None:
    """A dataclass's state fields (None for a plain class: its attributes are whatever was captured)."""
    declared = _declared_fields(cls) if dataclasses.is_dataclass(cls) else None
    return None if declared is None else frozenset(declared)


def _tag(tree: Any, where: _Where) -> str:
    if not isinstance(tree, dict) or len(tree) != 1:
        raise StateTreeError(f"{_spelled(where)}: {str(tree)[:60]!r} is not a state tree node")
    (tag,) = tree
    if tag not in _TAGS:
        raise StateTreeError(f"{_spelled(where)}: a node tagged {sorted(tree)} (expected one of {', '.join(_TAGS)})")
    return str(tag)


def _pair(item: Any, where: _Where) -> tuple[Any, Any]:
    if not isinstance(item, list) or len(item) != 2:
        raise StateTreeError(f"{_spelled(where)}: a dict item is a [key, value] pair")
    return item[0], item[1]
