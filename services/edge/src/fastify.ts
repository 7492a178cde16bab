import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '@studium/platform';
import type { FastifyInstance } from 'fastify';

/** The edge's fastify instance (its logger is the platform's pino logger): the surfaces register their routes on it. */
export type EdgeFastify = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;
