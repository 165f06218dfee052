// A JVM crawler's check-and-insert against `fpdb serve`, with nothing but
// the JDK (java.net.http). Run: java FpdbCheck.java http://127.0.0.1:7800 [TOKEN]
// Reads "<id>\t<text>" lines on standard input; prints, per line, the id
// and the ids of its stored near-duplicates (empty when it is new).

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class FpdbCheck {
    public static void main(String[] args) throws Exception {
        String server = args[0];
        String token = args.length > 1 ? args[1] : null;
        // One client: it keeps connections alive between requests.
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split("\t", 2);
            String body = "{\"id\":" + quote(parts[0]) + ",\"text\":" + quote(parts[1]) + "}";
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server + "/v1/check_and_insert"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                System.err.println(parts[0] + ": HTTP " + response.statusCode() + " " + response.body());
                System.exit(1);
            }
            System.out.println(parts[0] + "\t" + String.join(",", matchedIds(response.body())));
        }
    }

    /** The ids in the answer's "matches" (a JSON library would do this in a real crawler). */
    static List<String> matchedIds(String answer) {
        List<String> ids = new ArrayList<>();
        int start = answer.indexOf("\"matches\":[");
        int end = answer.indexOf("],\"previous\"");
        Matcher lists = Pattern.compile("\"ids\":\\[([^\\]]*)\\]").matcher(answer.substring(start, end));
        while (lists.find()) {
            Matcher id = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(lists.group(1));
            while (id.find()) {
                ids.add(id.group(1));
            }
        }
        return ids;
    }

    /** A JSON string. */
    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
