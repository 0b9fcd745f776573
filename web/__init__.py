"""What every web entry shares: the error type services raise and its API answer, request
helpers, the JSON parser, the OpenAPI hooks, error pages and the security middleware."""
