import Fastify from "fastify";
import rateLimit from "@fastify/rate-limit";
import { mobileAuthRoutes } from "./routes/mobileAuthRoutes";

/** The API process: every route under /api, behind the web app's origin. */
export async function buildServer() {
  const app = Fastify({ trustProxy: true });
  await app.register(rateLimit, { global: false });
  await app.register(mobileAuthRoutes, { prefix: "/api" });
  return app;
}
