/**
 * State of the generic emulation (src/generic/): the items of every collection no hand model owns
 * (Kubernetes clusters, uptime checks, apps...) and the settings written at one path (a cluster's
 * autoscale settings). Each is kept by its concrete path, so a node pool lives under its cluster's
 * path and goes with it.
 */

export interface GenericItem {
  /** The item's key as its path names it: an integer's digits, a UUID, or a name. */
  key: string;
  /** What requests gave the item (simple values only), by field name. */
  fields: Record<string, unknown>;
  created_ms: number;
  updated_ms: number;
}

export interface GenericSettings {
  fields: Record<string, unknown>;
  updated_ms: number;
}

export interface GenericState {
  /** Items by their collection's concrete path (`/v2/kubernetes/clusters/<id>/node_pools`), oldest first. */
  genericItems: Record<string, GenericItem[]>;
  /** Settings by the concrete path they are written at. */
  genericSettings: Record<string, GenericSettings>;
}

export function seedGenericState(): GenericState {
  return { genericItems: {}, genericSettings: {} };
}
