#include "catalog/gpu_ids.h"

#include <fmt/format.h>

#include "core/text.h"

namespace gpuplan::catalog {

std::string pci_id(uint16_t vendor, uint16_t device) {
  return fmt::format("{:04x}:{:04x}", vendor, device);
}

const Entry* gpu_by_pci_id(const Catalog& catalog, uint16_t vendor, uint16_t device) {
  const std::string id = pci_id(vendor, device);
  for (const Entry* e : catalog.of_kind("gpu"))
    if (e->has("pci_ids"))
      for (const auto& listed : e->list("pci_ids"))
        if (lower(listed) == id) return e;
  return nullptr;
}

}  // namespace gpuplan::catalog
