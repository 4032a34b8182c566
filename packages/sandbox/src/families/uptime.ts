/**
 * Uptime state of the sandbox world: checks and their alerts. A check's state (each region UP or
 * DOWN, its outages) is not stored: routes/uptime.ts derives it from the check and the time, so it
 * is the same in every process and moves on with the sandbox clock.
 */

export const UPTIME_REGIONS = ['us_east', 'us_west', 'eu_west', 'se_asia'] as const;
export type UptimeRegion = (typeof UPTIME_REGIONS)[number];

export interface StoredUptimeCheck {
  id: string;
  name: string;
  type: 'ping' | 'http' | 'https';
  target: string;
  regions: UptimeRegion[];
  enabled: boolean;
  created_ms: number;
  /** When the check was last enabled (its creation, if enabled then): its first probes follow. */
  enabled_ms: number;
  /** When the check was disabled, while it is: its state stays as it was then. */
  disabled_ms?: number;
}

export interface StoredUptimeAlert {
  id: string;
  check_id: string;
  name: string;
  type: 'latency' | 'down' | 'down_global' | 'ssl_expiry';
  threshold?: number;
  comparison?: 'greater_than' | 'less_than';
  notifications: { email: string[]; slack: { url: string; channel: string }[] };
  period: string;
  created_ms: number;
}

export interface UptimeState {
  uptimeChecks: StoredUptimeCheck[];
  uptimeAlerts: StoredUptimeAlert[];
}

export function seedUptimeState(): UptimeState {
  return { uptimeChecks: [], uptimeAlerts: [] };
}
