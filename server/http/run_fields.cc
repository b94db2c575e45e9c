#include "server/http/run_fields.h"

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace kbench::server::http {

std::string DTypeNameOf(v1::DType dtype) {
  if (dtype == v1::DTYPE_UNSPECIFIED) dtype = v1::DTYPE_FP32;
  absl::string_view name = v1::DType_Name(dtype);
  absl::ConsumePrefix(&name, "DTYPE_");
  return absl::AsciiStrToLower(name);
}

}  // namespace kbench::server::http
