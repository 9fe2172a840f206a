#include "probe/tools.h"
