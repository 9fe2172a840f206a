#include "probe/pci.h"
