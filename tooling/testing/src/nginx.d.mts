export declare const MCP_PROXY_CONF: string;
export declare function findNginx(): string;
export declare function nginxConfig(options: { dir: string; port: number; upstreams: number[] }): string;
export interface Nginx {
  /** The balanced MCP endpoint, http://127.0.0.1:<port>/mcp. */
  url: string;
  port: number;
  errorLog(): string;
  accessLog(): string;
  /** Stops nginx and removes its directory. */
  stop(): Promise<void>;
}
export declare function startNginx(
  options:
    | { upstreams: number[]; config?: undefined }
    | { upstreams?: undefined; config: (where: { dir: string; port: number }) => string },
): Promise<Nginx>;
