#include "probe/host_fs.h"
