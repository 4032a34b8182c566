/** Time as the platform writes it. A leaf module: the world, the families and the routes all use it. */

/** An ISO 8601 timestamp in whole seconds, such as `2026-01-02T03:04:05Z`. */
export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
