// The domain sits below report/: rendering is out of its sight.
#include "report/render.h"

int layer_check_domain() { return 0; }
