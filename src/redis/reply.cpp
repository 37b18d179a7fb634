#include "redis/reply.hpp"

#include <hiredis/hiredis.h>

namespace herald::redis {

Reply from_hiredis(const redisReply* r) {
  Reply out;
  if (r == nullptr) return out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = Reply::Type::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = Reply::Type::string;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = Reply::Type::status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = Reply::Type::error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = Reply::Type::array;
      out.elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i)
        out.elements.push_back(from_hiredis(r->element[i]));
      break;
    default:  // REDIS_REPLY_NIL
      break;
  }
  return out;
}

std::string Reply::describe() const {
  switch (type) {
    case Type::nil:
      return "nil";
    case Type::integer:
      return "integer " + std::to_string(integer);
    case Type::string:
      return "string of " + std::to_string(str.size()) + " bytes";
    case Type::status:
      return "status " + str;
    case Type::error:
      return "error " + str;
    case Type::array:
      return "array of " + std::to_string(elements.size());
  }
  return "?";
}

}  // namespace herald::redis
