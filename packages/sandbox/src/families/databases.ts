/**
 * Managed database state of the sandbox world: clusters, their users, topics, configuration,
 * trusted sources and online migrations. The databases routes own its behaviour.
 */

export interface DatabasesState {
  clusters: Record<string, unknown>[];
}

export function seedDatabasesState(): DatabasesState {
  return { clusters: [] };
}
