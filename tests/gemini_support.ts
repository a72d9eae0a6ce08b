/**
 * Helpers of the Gemini tests: an `@google/genai` client pointed at a gateway (its base URL
 * is the server root; the SDK adds the API version), and the channels behind fakes that
 * the tests ask through it.
 */
import { type FunctionDeclaration, GoogleGenAI, Type } from "@google/genai";
import type { TestGateway } from "./harness.ts";

/** An `@google/genai` client for the gateway, on `apiVersion` (the SDK's default is v1). */
export function genaiClient(
  gateway: TestGateway,
  key: string,
  apiVersion?: "v1" | "v1beta",
): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: gateway.url, ...(apiVersion ? { apiVersion } : {}) },
  });
}

/** A function declaration the tests offer the model, in Google's shape. */
export const WEATHER_TOOL: FunctionDeclaration = {
  name: "get_weather",
  description: "The weather in a city.",
  parameters: {
    type: Type.OBJECT,
    properties: { city: { type: Type.STRING } },
    required: ["city"],
  },
};

/** The call the fakes make of it. */
export const WEATHER_CALL = { id: "call_1", name: "get_weather", arguments: '{"city":"Lisbon"}' };
