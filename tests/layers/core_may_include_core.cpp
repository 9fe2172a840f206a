// core may include core: the control for core_cannot_include_plan.cpp.
#include "core/money.h"

int layer_check_core() { return 0; }
