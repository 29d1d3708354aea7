// The packing gate's options (GateConfig), declared once (spec/option.hpp): validate()
// checks a GateConfig against this table, and the Python keywords and `libscale gate`
// flags derive from it (libscale.options.options("gate")).
#pragma once

#include "libscale/gate/packing.hpp"
#include "libscale/spec/option.hpp"

namespace libscale {

const OptionTable<GateConfig>& gate_options();

}  // namespace libscale
