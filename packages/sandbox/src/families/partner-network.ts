/**
 * Partner Network Connect state of the sandbox world: attachments that connect VPCs of the account
 * to a network-as-a-service provider (Megaport) in a metro (nyc, sfo, ...), over BGP. An attachment
 * is CREATING, then CREATED, and once deleted DELETING, then gone: derived from its timestamps when
 * read. Its BGP auth key and its service key (what the provider's portal is given) are secrets,
 * shown only by their own operations.
 */

/** How long an attachment, or a new service key, takes to be ready; and to be deleted. */
export const PARTNER_ATTACHMENT_MS = 3_000;

/** The ASN of the platform's side of the BGP session. */
export const PARTNER_LOCAL_ASN = 64532;

export interface StoredPartnerBgp {
  local_router_ip: string;
  peer_router_ip: string;
  peer_router_asn: number;
}

export interface StoredPartnerAttachment {
  id: string;
  name: string;
  /** The metro: nyc, sfo, fra, ams or sgp. */
  region: string;
  connection_bandwidth_in_mbps: number;
  naas_provider: string;
  vpc_ids: string[];
  /** Absent when the attachment was made without a BGP configuration. */
  bgp?: StoredPartnerBgp;
  bgp_auth_key: string;
  bgp_auth_key_ms: number;
  redundancy_zone?: string;
  /** The attachment this one is the redundant pair of. */
  parent_uuid?: string;
  service_key: string;
  /** When the current service key was asked for (it is ready `PARTNER_ATTACHMENT_MS` later). */
  service_key_ms: number;
  created_ms: number;
  deleted_ms?: number;
}

export interface PartnerNetworkState {
  partnerAttachments: StoredPartnerAttachment[];
}

export function seedPartnerNetworkState(): PartnerNetworkState {
  return { partnerAttachments: [] };
}
