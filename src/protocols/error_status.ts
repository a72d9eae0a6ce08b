/** The HTTP status an upstream's error type stands for, when it reports one in a stream. */

// OpenAI error types/codes and Anthropic error types (their API references' error tables).
const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  permission_denied: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
  service_unavailable: 503,
  timeout_error: 504,
};

/** The status of an error type or code; 500 for anything unknown. */
export function statusOfErrorType(type: string | undefined): number {
  return (type && STATUS_BY_TYPE[type]) || 500;
}
