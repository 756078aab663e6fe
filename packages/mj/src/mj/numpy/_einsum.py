"""``einsum``: Einstein summation lowered to ``dot_general``, ``reduce_sum`` and ``transpose``.

Operands are contracted pairwise from left to right. Before each contraction, labels that no
later operand or the output needs are summed away, so each ``dot_general`` only carries the
batch (shared and still needed) and contracting (shared, no longer needed) dimensions.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike
from mj_core.numpy import diagonal

__all__ = ["einsum"]


_SUBLIST_LABELS = string.ascii_uppercase + string.ascii_lowercase
# Stand-ins for the dims '...' covers: not letters, so they never collide with a user's labels.
_ELLIPSIS_LABELS = "".join(chr(0x4E00 + i) for i in range(64))[::-1]


def _parse(subscripts: str, ndims: Sequence[int]) -> tuple[list[str], str]:
    spec = subscripts.replace(" ", "")
    inputs_part, arrow, output = spec.partition("->")
    inputs = inputs_part.split(",")
    if len(inputs) != len(ndims):
        raise ValueError(
            f"einsum: {len(inputs)} operand subscripts in {subscripts!r} but {len(ndims)} operands"
        )
    n_ellipsis = 0
    expanded: list[str] = []
    for labels, ndim in zip(inputs, ndims, strict=True):
        if "..." in labels:
            n = ndim - (len(labels) - 3)
            n_ellipsis = max(n_ellipsis, n)
            labels = labels.replace("...", _ELLIPSIS_LABELS[:n][::-1])
        if len(labels) != ndim:
            raise ValueError(
                f"einsum: subscripts {labels!r} do not match an operand of rank {ndim}"
            )
        expanded.append(labels)
    ellipsis = _ELLIPSIS_LABELS[:n_ellipsis][::-1]
    if arrow:
        output = output.replace("...", ellipsis)
    else:  # implicit mode: '...' dims, then labels used once, alphabetically
        counts = Counter("".join(expanded))
        output = ellipsis + "".join(
            sorted(c for c in counts if counts[c] == 1 and c not in ellipsis)
        )
    return expanded, output


def _diagonalize(x: ArrayLike, labels: str) -> tuple[AnyArray, str]:
    """Take diagonals for labels repeated within one operand (``'ii->i'``)."""
    while True:
        dup = next((c for c in labels if labels.count(c) > 1), None)
        if dup is None:
            return x, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        x = diagonal(x, 0, i, j)  # the diagonal becomes the last axis
        labels = "".join(c for k, c in enumerate(labels) if k not in (i, j)) + dup


def _sum_unneeded(x: ArrayLike, labels: str, keep: set[str]) -> tuple[AnyArray, str]:
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    return lax.reduce_sum(x, axes), "".join(c for c in labels if c in keep)


def _from_sublists(args: Sequence[Any]) -> tuple[str, list[Array]]:
    """NumPy's interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as subscripts: label
    ``k`` is the ``k``-th of A-Z then a-z (as in NumPy, so implicit output keeps int order),
    ``Ellipsis`` is ``...``."""

    def labels(sublist: Any) -> str:
        out = []
        for k in sublist:
            if k is Ellipsis:
                out.append("...")
            elif isinstance(k, int) and 0 <= k < len(_SUBLIST_LABELS):
                out.append(_SUBLIST_LABELS[k])
            else:
                raise ValueError(f"einsum: sublist labels are ints in [0, 52) or ..., got {k!r}")
        return "".join(out)

    operands = list(args[0::2][: len(args) // 2])
    inputs = ",".join(labels(sub) for sub in args[1::2][: len(args) // 2])
    output = f"->{labels(args[-1])}" if len(args) % 2 else ""
    return inputs + output, operands


def einsum(
    subscripts: Any,
    *operands: ArrayLike | Sequence[Any],  # (the interleaved form: operands and index lists)
    optimize: Any = None,
    precision: Any = None,
    preferred_element_type: DTypeLike | None = None,
    _dot_general: Callable[..., Any] | None = None,
) -> Array:
    """Evaluate the Einstein summation ``subscripts`` on ``operands`` (NumPy's notation,
    including ``...``, implicit output and the interleaved ``einsum(a, [0, 1], b, [1, 2])``
    form). ``optimize`` is accepted for compatibility; the contraction order is always left to
    right. ``precision`` goes to each ``dot_general``; with ``preferred_element_type`` the
    operands are contracted in that dtype. ``_dot_general`` (JAX's keyword, which flax uses
    for quantized attention) replaces ``lax.dot_general`` in each contraction."""
    if not isinstance(subscripts, str):
        subscripts, operands_list = _from_sublists((subscripts, *operands))
        operands = tuple(operands_list)
    if not operands:
        raise ValueError("einsum: no operands given")
    arrays = [cnp.asarray(x) for x in operands]
    dtype = cnp.result_type(*arrays) if preferred_element_type is None else preferred_element_type
    arrays = [lax.convert_element_type(x, dtype) for x in arrays]
    label_lists, output = _parse(subscripts, [cnp.ndim(x) for x in arrays])
    sizes: dict[str, int] = {}
    for x, labels in zip(arrays, label_lists, strict=True):
        for c, d in zip(labels, cnp.shape(x), strict=True):
            known = sizes.get(c, 1)
            if d != 1 and known not in (1, d):
                raise ValueError(f"einsum: label {c!r} has sizes {known} and {d}")
            if known == 1:  # a size-1 dim broadcasts against any size, 0 included
                sizes[c] = d
    # broadcast size-1 dims (from '...' or explicit) to the label's full size
    ops: list[tuple[AnyArray, str]] = []
    for x, labels in zip(arrays, label_lists, strict=True):
        shape = tuple(
            sizes[c] if labels.count(c) == 1 else d
            for c, d in zip(labels, cnp.shape(x), strict=True)
        )
        if shape != cnp.shape(x):
            x = cnp.broadcast_to(x, shape)
        ops.append(_diagonalize(x, labels))
    if any(c not in "".join(label_lists) for c in output):
        raise ValueError(f"einsum: output subscript in {subscripts!r} not among the inputs")

    def needed_after(k: int) -> set[str]:
        return set(output).union(*(set(lbl) for _, lbl in ops[k + 1 :]))

    acc, acc_labels = _sum_unneeded(*ops[0], needed_after(0))
    for k in range(1, len(ops)):
        rhs, rhs_labels = ops[k]
        later = needed_after(k)
        acc, acc_labels = _sum_unneeded(acc, acc_labels, later | set(rhs_labels))
        rhs, rhs_labels = _sum_unneeded(rhs, rhs_labels, later | set(acc_labels))
        shared = [c for c in acc_labels if c in rhs_labels]
        batch = [c for c in shared if c in later]
        contract = [c for c in shared if c not in later]
        dims = (
            (
                tuple(acc_labels.index(c) for c in contract),
                tuple(rhs_labels.index(c) for c in contract),
            ),
            (tuple(acc_labels.index(c) for c in batch), tuple(rhs_labels.index(c) for c in batch)),
        )
        if _dot_general is None:
            acc = lax.dot_general(acc, rhs, dims, precision=precision)
        else:
            acc = _dot_general(acc, rhs, dims, precision=precision)
        acc_labels = (
            "".join(batch)
            + "".join(c for c in acc_labels if c not in shared)
            + "".join(c for c in rhs_labels if c not in shared)
        )
    acc, acc_labels = _sum_unneeded(acc, acc_labels, set(output))
    return lax.transpose(acc, tuple(acc_labels.index(c) for c in output))
