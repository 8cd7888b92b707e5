package dev.exactlyonce.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.testapp.TestInstances.Instance;

/**
 * Calls a running instance's actuator endpoints over HTTP and reads the answers as JSON.
 */
final class ActuatorHttp {

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	private final String base;

	ActuatorHttp(Instance instance) {
		this.base = "http://127.0.0.1:" + instance.context().getEnvironment().getProperty("local.server.port");
	}

	/** The answer to a GET of {@code path}, after checking its status. */
	JsonNode get(String path, int expectedStatus) throws Exception {
		return send(HttpRequest.newBuilder(uri(path)).GET(), expectedStatus);
	}

	/** The answer to a JSON POST of {@code body} to {@code path}, after checking its status. */
	JsonNode post(String path, String body, int expectedStatus) throws Exception {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body)), expectedStatus);
	}

	/** The answer to a JSON POST of {@code body} to {@code path} as {@code user} ({@code TestUserFilter}), after checking its status. */
	JsonNode post(String path, String body, String user, int expectedStatus) throws Exception {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.header("X-Test-User", user)
			.POST(HttpRequest.BodyPublishers.ofString(body)), expectedStatus);
	}

	/** The answer to a DELETE of {@code path}, after checking its status. */
	JsonNode delete(String path, int expectedStatus) throws Exception {
		return send(HttpRequest.newBuilder(uri(path)).DELETE(), expectedStatus);
	}

	/**
	 * The status of a request, whatever it is.
	 * @param method {@code GET}, {@code POST} (with a JSON body) or {@code DELETE}
	 * @param path the path
	 * @param body the JSON body of a POST, else {@code null}
	 * @return the status
	 */
	int status(String method, String path, String body) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path));
		if (body != null) {
			request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
		}
		else {
			request.method(method, HttpRequest.BodyPublishers.noBody());
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
	}

	/**
	 * The answer to a JSON POST of {@code body} to {@code path}, whatever its status (for a sender that
	 * sends again on some).
	 * @param path the path
	 * @param body the JSON body
	 * @return the status and the JSON answer
	 */
	Answer postAnyStatus(String path, String body) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
		return new Answer(response.statusCode(),
				response.body().isEmpty() ? this.json.createObjectNode() : this.json.readTree(response.body()));
	}

	private JsonNode send(HttpRequest.Builder request, int expectedStatus) throws Exception {
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		assertStatus(response, expectedStatus);
		return response.body().isEmpty() ? this.json.createObjectNode() : this.json.readTree(response.body());
	}

	private static void assertStatus(HttpResponse<String> response, int expectedStatus) {
		if (response.statusCode() != expectedStatus) {
			throw new AssertionError(response.request().method() + " " + response.uri() + " answered "
					+ response.statusCode() + " instead of " + expectedStatus + ": " + response.body());
		}
	}

	private URI uri(String path) {
		return URI.create(this.base + path);
	}

	/**
	 * A status and its JSON answer.
	 * @param status the HTTP status
	 * @param body the answer
	 */
	record Answer(int status, JsonNode body) {
	}

}
