#include "nvml/nvml.h"
