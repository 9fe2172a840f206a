#include "probe/host.h"
