"""TRANSITIONAL: the convolution lax API is in its family file now
(:mod:`mj_core.prims.convolution`) and in the lax namespace (:mod:`mj_core.lax`);
``reshape_axis_into``/``reshape_axis_out_of`` are in :mod:`mj_core.extend`. This old path
re-exports what its importers use."""

from mj_core.prims.convolution import ConvDimensionNumbers as ConvDimensionNumbers
from mj_core.prims.convolution import conv as conv
from mj_core.prims.convolution import conv_dimension_numbers as conv_dimension_numbers
from mj_core.prims.convolution import conv_general_dilated as conv_general_dilated
from mj_core.prims.convolution import conv_general_permutations as conv_general_permutations
from mj_core.prims.convolution import conv_transpose as conv_transpose
from mj_core.prims.convolution import conv_with_general_padding as conv_with_general_padding
from mj_core.prims.convolution import padtype_to_pads as padtype_to_pads
from mj_core.prims.convolution import reshape_axis_into as reshape_axis_into
from mj_core.prims.convolution import reshape_axis_out_of as reshape_axis_out_of
