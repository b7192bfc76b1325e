# Ballast registry node, built from the already-packaged jar:
#
#   ./mvnw -DskipTests package
#   docker build -t ballast .
#
# Without SPRING_DATASOURCE_URL the node starts its embedded PostgreSQL under
# /var/lib/ballast (mount a volume there to keep it: -v ballast-data:/var/lib/ballast).
# docker-compose.yml shows the production shape instead: one PostgreSQL shared by
# several nodes.
FROM eclipse-temurin:25-jre

# curl serves the compose health check (GET /actuator/health/readiness); the base
# image is not guaranteed to ship it.
RUN apt-get update \
	&& apt-get install -y --no-install-recommends curl \
	&& rm -rf /var/lib/apt/lists/*

# A fixed, unprivileged user: PostgreSQL (when embedded) refuses to run as root, and
# the node needs no privileges. Its home is the data directory.
RUN groupadd --system --gid 10001 ballast \
	&& useradd --system --uid 10001 --gid ballast --home-dir /var/lib/ballast --shell /usr/sbin/nologin ballast \
	&& mkdir -p /var/lib/ballast /app \
	&& chown ballast:ballast /var/lib/ballast

COPY target/ballast-*.jar /app/ballast.jar

ENV BALLAST_DATA_DIR=/var/lib/ballast
WORKDIR /var/lib/ballast
USER ballast:ballast
EXPOSE 8080

# Exec form: java is PID 1 and receives SIGTERM directly, so Spring's graceful
# shutdown runs (give it the stop grace period: compose sets stop_grace_period).
# Heap sized from the container's memory limit; add flags with JAVA_TOOL_OPTIONS.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/app/ballast.jar"]
