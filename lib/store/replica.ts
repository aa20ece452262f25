import { hostname } from 'node:os';

/** This replica's name in the fleet: the `replicaName` option, else `<host name>:<pid>`. */
export const replicaOf = (name: string | undefined): string => name ?? `${hostname()}:${process.pid}`;
