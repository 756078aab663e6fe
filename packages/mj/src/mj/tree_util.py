"""``mj.tree_util``: pytrees (nested tuples, lists, dicts, namedtuples, None and registered
classes) as every transformation sees them. The same objects as :mod:`mj_core.tree_util`."""

from mj_core.tree_util import DictKey as DictKey
from mj_core.tree_util import FlattenedIndexKey as FlattenedIndexKey
from mj_core.tree_util import GetAttrKey as GetAttrKey
from mj_core.tree_util import KeyEntry as KeyEntry
from mj_core.tree_util import KeyPath as KeyPath
from mj_core.tree_util import Partial as Partial
from mj_core.tree_util import PyTreeDef as PyTreeDef
from mj_core.tree_util import SequenceKey as SequenceKey
from mj_core.tree_util import all_leaves as all_leaves
from mj_core.tree_util import flatten_one_level as flatten_one_level
from mj_core.tree_util import flatten_one_level_with_keys as flatten_one_level_with_keys
from mj_core.tree_util import is_tree_node as is_tree_node
from mj_core.tree_util import keystr as keystr
from mj_core.tree_util import register_dataclass as register_dataclass
from mj_core.tree_util import register_pytree_node as register_pytree_node
from mj_core.tree_util import register_pytree_node_class as register_pytree_node_class
from mj_core.tree_util import register_pytree_with_keys as register_pytree_with_keys
from mj_core.tree_util import register_pytree_with_keys_class as register_pytree_with_keys_class
from mj_core.tree_util import register_static as register_static
from mj_core.tree_util import tree_all as tree_all
from mj_core.tree_util import tree_broadcast as tree_broadcast
from mj_core.tree_util import tree_flatten as tree_flatten
from mj_core.tree_util import tree_flatten_with_path as tree_flatten_with_path
from mj_core.tree_util import tree_leaves as tree_leaves
from mj_core.tree_util import tree_leaves_with_path as tree_leaves_with_path
from mj_core.tree_util import tree_map as tree_map
from mj_core.tree_util import tree_map_with_path as tree_map_with_path
from mj_core.tree_util import tree_reduce as tree_reduce
from mj_core.tree_util import tree_reduce_associative as tree_reduce_associative
from mj_core.tree_util import tree_structure as tree_structure
from mj_core.tree_util import tree_transpose as tree_transpose
from mj_core.tree_util import tree_unflatten as tree_unflatten
from mj_core.tree_util import treedef_children as treedef_children
from mj_core.tree_util import treedef_is_leaf as treedef_is_leaf
from mj_core.tree_util import treedef_tuple as treedef_tuple
