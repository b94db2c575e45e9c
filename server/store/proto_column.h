// Protos stored as binary columns (SqlBytes): how the stores write a
// message and read one back.
#pragma once

#include "google/protobuf/message.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

inline SqlBytes Serialized(const google::protobuf::Message& message) {
  return SqlBytes{message.SerializeAsString()};
}

// Whether `value` (a binary column) parsed into `message`.
inline bool ParseColumn(const SqlValue& value, google::protobuf::Message& message) {
  const SqlBytes* bytes = std::get_if<SqlBytes>(&value);
  return bytes != nullptr && message.ParseFromString(bytes->data);
}

}  // namespace kbench::server::store
