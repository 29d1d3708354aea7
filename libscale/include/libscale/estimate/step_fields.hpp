// The outputs of one step estimate, its memory breakdown and a projection's row (one GPU
// count of a job),
// each declared once beside the option tables (spec/option.hpp): name, type, unit, help,
// the label and number format tables and plots show, and which results carry it. The
// Python properties of StepBreakdown and ProjectionRow, the sweep's columns, the CLI's
// tables, the plots' part labels, the JSON schemas and the output section of docs/cli.md
// are all derived from these tables (scripts/regenerate.sh).
//
// Adding an output: its member in StepBreakdown (step_model.hpp), MemoryBreakdown
// (memory_model.hpp) or ProjectionRow (projection.hpp), its entry in step_fields.cpp; an output computed from others
// needs the entry only. Nothing else is written by hand.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "libscale/estimate/projection.hpp"
#include "libscale/estimate/step_model.hpp"

namespace libscale {

enum class FieldType : std::uint8_t { integer, number, boolean };
const char* to_string(FieldType t);

// Where a field shows beyond the object that holds it (every field is a property of its
// StepBreakdown or ProjectionRow, and a key of a projection row's dict).
enum FieldUse : unsigned {
    in_sweep = 1U << 0,       // a column of sweep()'s result
    step_part = 1U << 1,      // a part of the step time (the parts table, stacked bars)
    step_total = 1U << 2,     // a total the parts table shows beside the parts
    in_projection = 1U << 3,  // a column of a projection's table (project, compare, report)
};

template <class T>
struct OutputField {
    std::string_view name;  // "exposed_comm_s": unit in the name, as everywhere
    FieldType type = FieldType::number;
    std::string_view unit;   // "s", "tokens/s", "" (a fraction, a count of its own)
    std::string_view label;  // "exposed comm": column headers add the unit
    // "integer", "fixed:N" (N decimals), "percent:N" (a fraction shown ×100), "yes_no"
    std::string_view format;
    std::string_view help;
    unsigned uses = 0;
    double (*get)(const T&) noexcept = nullptr;  // integers and booleans exactly (0/1)
};
using StepField = OutputField<StepBreakdown>;
using RowField = OutputField<ProjectionRow>;
using MemoryField = OutputField<MemoryBreakdown>;

// Every output of a step, in StepBreakdown's order.
std::span<const StepField> step_fields() noexcept;
// Every number of a projection row beside its step (the row's `step` holds the step's;
// its text fields, fit_status and fit_suggestion, are bound with the row).
std::span<const RowField> row_fields() noexcept;
// Every number of the memory breakdown (its text fields, peak_phase and status, and the
// per-phase dict are bound with it).
std::span<const MemoryField> memory_fields() noexcept;

// The field of that name (std::invalid_argument naming the valid ones).
const StepField& find_step_field(std::string_view name);

}  // namespace libscale
