export declare function freePort(): Promise<number>;
export declare function accepts(port: number): Promise<boolean>;
