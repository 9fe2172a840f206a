#include "probe/kernel_log.h"
