// Any method on /api/* that no route declares - not an endpoint: a JSON 404 in the one error body.
import { unknownApiPath } from "@/lib/http/unknown-path";

export { unknownApiPath as GET, unknownApiPath as POST, unknownApiPath as PUT, unknownApiPath as PATCH, unknownApiPath as DELETE };
