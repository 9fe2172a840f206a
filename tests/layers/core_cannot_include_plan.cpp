// core is the lowest layer: a plan/ header is out of its sight.
#include "plan/config.h"

int layer_check_core() { return 0; }
