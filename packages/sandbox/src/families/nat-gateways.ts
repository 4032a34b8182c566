/**
 * VPC NAT gateway state of the sandbox world. A gateway lives in one region and is the egress of
 * VPCs of that region (the default route of those that say so), through one public address. Its
 * state (NEW, PROVISIONING, ACTIVE, then DELETING once deleted) is derived from its timestamps when
 * read; a deleted gateway is kept, DELETING, for two steps, then dropped.
 */

/** How long each step of a gateway's life takes, in sandbox time (NEW, then PROVISIONING, then DELETING). */
export const NAT_GATEWAY_STEP_MS = 1_500;

/** The platform's timeouts when none are given (doctl's defaults), in seconds. */
export const NAT_GATEWAY_TIMEOUTS = { udp: 30, icmp: 30, tcp: 300 } as const;

export interface StoredNatGatewayVpc {
  vpc_uuid: string;
  default_gateway: boolean;
  /** The gateway's private address in the VPC. */
  gateway_ip: string;
}

export interface StoredNatGateway {
  id: string;
  name: string;
  region: string;
  size: number;
  vpcs: StoredNatGatewayVpc[];
  /** The public address traffic leaves by (shown once the gateway is active). */
  egress_ip: string;
  udp_timeout_seconds: number;
  icmp_timeout_seconds: number;
  tcp_timeout_seconds: number;
  created_ms: number;
  updated_ms: number;
  deleted_ms?: number;
}

export interface NatGatewaysState {
  natGateways: StoredNatGateway[];
}

export function seedNatGatewaysState(): NatGatewaysState {
  return { natGateways: [] };
}
